// The inspector's JSON API (same origin; the cookie carries the token).

export async function get(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}
