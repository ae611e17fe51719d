#!/usr/bin/env python3
"""No new circle between sibling modules (issue 38, item 5).

Reads the `src/` tree of every crate under `crates/` as text (the library root `lib.rs` and the
binary root `main.rs` are separate module trees) and builds, for each parent module, the graph
of its child modules. A child is taken with everything below it: a reference from anywhere in
child A's subtree to a path in child B's subtree is an arrow A -> B. A module and its own
descendants may use each other freely. References are `use` items (nested groups included) and
path expressions (`crate::a::b::f()`, `super::x`, `self::y`, `child::z`), resolved against the
module tree built from `mod` declarations (`#[path]` included). Comments and string literals
are ignored. Each strongly connected component of more than one sibling is a circle.

The circles that exist today are listed in `scripts/layers.baseline`, one line each; the check
is a ratchet: it fails on a circle that is not listed, on a listed circle that gained members,
and on a listed circle that is gone or smaller (then the line must be deleted or narrowed, so
that the list only shrinks).

Where a folder's floors are written down, arrows must also point down them: a line of
`scripts/layers.order` that reads `crate: parent: top > ... > bottom` fails an arrow from a
sibling to one named before it (siblings the line does not name are free), and one that reads
`crate: from -> to: child, ...` fails a reference from `from` (or below) into `to` that does not
reach one of the children named. A line naming a module that does not exist fails too.

    scripts/layers.py              # check against the baseline and the orders (CI)
    scripts/layers.py --report     # print every circle with the references that make it
    scripts/layers.py --root DIR   # another tree (DIR/crates/*/src); the tests use this
"""

import argparse
import os
import re
import sys
from collections import defaultdict

BASELINE_NAME = os.path.join("scripts", "layers.baseline")
ORDER_NAME = os.path.join("scripts", "layers.order")

# ---------------------------------------------------------------------------------------------
# Lexing: identifiers, `::`, single punctuation characters and string literals (kept only for
# `#[path = "..."]`), each with its line; comments, char literals, lifetimes and numbers dropped.

IDENT = re.compile(r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*")
RAW_STRING = re.compile(r'(?:br|cr|r)(#*)"')
PREFIXED_STRING = re.compile(r'(?:b|c)"')


def lex(text):
    """Returns a list of (kind, value, line); kind is 'id', 'str' or 'p' (punctuation)."""
    tokens = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif RAW_STRING.match(text, i):
            m = RAW_STRING.match(text, i)
            closing = '"' + m.group(1)
            end = text.find(closing, m.end())
            end = n if end < 0 else end
            value = text[m.end():end]
            tokens.append(("str", value, line))
            line += value.count("\n")
            i = end + len(closing)
        elif c == '"' or PREFIXED_STRING.match(text, i):
            start = line
            i = text.index('"', i) + 1
            chars = []
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    chars.append(text[i:i + 2])
                    line += text[i + 1:i + 2] == "\n"
                    i += 2
                    continue
                line += text[i] == "\n"
                chars.append(text[i])
                i += 1
            tokens.append(("str", "".join(chars), start))
            i += 1
        elif c == "'" or (c == "b" and text.startswith("b'", i)):
            i += 1 if c == "'" else 2
            if i < n and text[i] == "\\":  # an escaped char literal: '\n', '\u{1F600}', '\''
                end = text.find("'", i + 2)
                i = n if end < 0 else end + 1
            elif i + 1 < n and text[i + 1] == "'":  # 'x'
                i += 2
            else:  # a lifetime or label: 'a, 'static
                m = IDENT.match(text, i)
                i = m.end() if m else i
        elif c.isdigit():
            m = re.compile(r"[0-9][A-Za-z0-9_]*").match(text, i)
            i = m.end()
        elif IDENT.match(text, i):
            m = IDENT.match(text, i)
            value = m.group(0)
            tokens.append(("id", value[2:] if value.startswith("r#") else value, line))
            i = m.end()
        elif text.startswith("::", i):
            tokens.append(("p", "::", line))
            i += 2
        else:
            tokens.append(("p", c, line))
            i += 1
    return tokens


# ---------------------------------------------------------------------------------------------
# The module tree and the raw references of one crate root.


class Reference:
    """A path written in `module` at `file:line`, not yet resolved."""

    def __init__(self, module, segments, file, line):
        self.module = module
        self.segments = segments
        self.file = file
        self.line = line


class Tree:
    """Modules (tuples of names from the crate root) and the paths written in each."""

    def __init__(self):
        self.children = defaultdict(set)
        self.modules = {()}
        self.references = []
        self.warnings = []

    def add_module(self, path):
        self.modules.add(path)
        self.children[path[:-1]].add(path[-1])


def parse_use_tree(tokens, i, prefix, out):
    """Parses one use tree from tokens[i]; appends each full path to out; returns the next index."""
    segments = list(prefix)
    while i < len(tokens):
        kind, value, _ = tokens[i]
        if kind == "id" and value != "as":
            segments.append(value)
            i += 1
        elif value == "::":
            i += 1
        elif value == "{":
            i += 1
            while i < len(tokens) and tokens[i][1] != "}":
                if tokens[i][1] == ",":
                    i += 1
                    continue
                i = parse_use_tree(tokens, i, segments, out)
            return i + 1
        elif value == "*":
            out.append(segments)
            return i + 1
        elif kind == "id" and value == "as":
            out.append(segments)
            return i + 2
        else:  # ',' '}' ';'
            break
    if segments and segments[-1] == "self":
        segments = segments[:-1]
    if segments:
        out.append(segments)
    return i


def module_file(directory, name, path_attribute):
    """The file of `mod name;` declared in a file whose children live in `directory`."""
    if path_attribute is not None:
        return path_attribute
    for candidate in (os.path.join(directory, name + ".rs"), os.path.join(directory, name, "mod.rs")):
        if os.path.isfile(candidate):
            return candidate
    return None


def parse_file(tree, file, module, children_dir, repo_root, seen):
    """Reads one file that holds `module`; declared child modules are read recursively."""
    key = (file, module)
    if key in seen:
        return
    seen.add(key)
    with open(file, encoding="utf-8") as handle:
        tokens = lex(handle.read())
    relative = os.path.relpath(file, repo_root)
    file_dir = os.path.dirname(file)
    # (module, directory of its children, brace depth inside it)
    stack = [(module, children_dir, 0)]
    depth = 0
    path_attribute = None
    i = 0
    while i < len(tokens):
        kind, value, line = tokens[i]
        current, current_dir, _ = stack[-1]
        if value == "#" and i + 5 < len(tokens) and tokens[i + 1][1] == "[" \
                and tokens[i + 2][1] == "path" and tokens[i + 3][1] == "=" \
                and tokens[i + 4][0] == "str":
            path_attribute = tokens[i + 4][1]
            i += 6
            continue
        if value in ("{", "}", ";"):
            if value == "{":
                depth += 1
            elif value == "}":
                if len(stack) > 1 and stack[-1][2] == depth:
                    stack.pop()
                depth -= 1
            path_attribute = None
            i += 1
            continue
        if kind == "id" and value == "mod" and i + 2 < len(tokens) and tokens[i + 1][0] == "id":
            name = tokens[i + 1][1]
            child = current + (name,)
            after = tokens[i + 2][1]
            if after == ";":
                tree.add_module(child)
                if path_attribute is not None:
                    # relative to the file's directory (to the module's, inside an inline
                    # module); such a file's own children live next to it
                    base = file_dir if len(stack) == 1 else current_dir
                    target = os.path.normpath(os.path.join(base, path_attribute))
                    child_file = target if os.path.isfile(target) else None
                    child_dir = os.path.dirname(target)
                else:
                    child_file = module_file(current_dir, name, None)
                    child_dir = os.path.join(current_dir, name)
                if child_file is None:
                    tree.warnings.append(f"{relative}:{line}: no file for `mod {name};`")
                else:
                    parse_file(tree, child_file, child, child_dir, repo_root, seen)
                path_attribute = None
                i += 3
                continue
            if after == "{":
                tree.add_module(child)
                depth += 1
                stack.append((child, os.path.join(current_dir, name), depth))
                path_attribute = None
                i += 3
                continue
        if kind == "id" and value == "use":
            paths = []
            j = i + 1
            if j < len(tokens) and tokens[j][1] == "::":
                j += 1  # `use ::name`: an external crate
                while j < len(tokens) and tokens[j][1] != ";":
                    j += 1
                i = j
                continue
            j = parse_use_tree(tokens, j, [], paths)
            for segments in paths:
                if segments:
                    tree.references.append(Reference(current, segments, relative, line))
            i = j
            continue
        if kind == "id" and i + 1 < len(tokens) and tokens[i + 1][1] == "::" \
                and not (i > 0 and tokens[i - 1][1] in ("::", "$")) \
                and not (i > 2 and tokens[i - 1][1] == "in" and tokens[i - 2][1] == "("
                         and tokens[i - 3][1] == "pub"):
            segments = [value]
            j = i + 1
            while j + 1 < len(tokens) and tokens[j][1] == "::" and tokens[j + 1][0] == "id":
                segments.append(tokens[j + 1][1])
                j += 2
            if j < len(tokens) and tokens[j][1] == "::" and j + 1 < len(tokens) \
                    and tokens[j + 1][1] == "{":
                # a group outside `use` (as in a macro's input): read it as a use tree
                paths = []
                parse_use_tree(tokens, j + 1, segments, paths)
                for group_path in paths:
                    tree.references.append(Reference(current, group_path, relative, line))
            tree.references.append(Reference(current, segments, relative, line))
            i = j
            continue
        i += 1


def resolve(tree, reference):
    """The deepest module of the tree a reference names, or None (external crate, local item)."""
    segments = reference.segments
    module = reference.module
    first = segments[0]
    k = 0
    if first == "crate":
        module, k = (), 1
    elif first in ("super", "self"):
        while k < len(segments) and segments[k] in ("super", "self"):
            if segments[k] == "super":
                if not module:
                    return None
                module = module[:-1]
            k += 1
    elif first not in tree.children.get(module, ()):
        return None
    while k < len(segments) and segments[k] in tree.children.get(module, ()):
        module = module + (segments[k],)
        k += 1
    return module


# ---------------------------------------------------------------------------------------------
# Sibling graphs and their strongly connected components.


def sibling_arrows(tree):
    """{parent: {(a, b): [(file, line, target path)]}} for every arrow between siblings."""
    arrows = defaultdict(lambda: defaultdict(list))
    for reference in tree.references:
        target = resolve(tree, reference)
        if target is None:
            continue
        source = reference.module
        common = 0
        while common < min(len(source), len(target)) and source[common] == target[common]:
            common += 1
        if common == len(source) or common == len(target):
            continue  # the same module, or an ancestor and its descendant
        parent = source[:common]
        arrows[parent][(source[common], target[common])].append(
            (reference.file, reference.line, "::".join(reference.segments)))
    return arrows


def strongly_connected(nodes, edges):
    """Tarjan's algorithm; returns the components of more than one node, each sorted."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    successors = defaultdict(list)
    for a, b in edges:
        successors[a].append(b)

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(successors[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return components


class Circle:
    """A circle between siblings of `parent` in crate (or binary) `unit`."""

    def __init__(self, unit, parent, members, edges):
        self.unit = unit
        self.parent = parent
        self.members = members  # full module paths, "a::b"
        self.edges = edges  # [(from, to, [(file, line, path)])]

    def key(self):
        return f"{self.unit}: " + " <-> ".join(self.members)


def circles_of(unit, tree):
    found = []
    for parent, edges in sorted(sibling_arrows(tree).items()):
        nodes = {node for edge in edges for node in edge}
        for component in strongly_connected(nodes, edges.keys()):
            inside = set(component)
            circle_edges = [(a, b, refs) for (a, b), refs in sorted(edges.items())
                            if a in inside and b in inside]
            full = ["::".join(parent + (member,)) for member in component]
            found.append(Circle(unit, parent, full, [
                ("::".join(parent + (a,)), "::".join(parent + (b,)), refs)
                for a, b, refs in circle_edges]))
    return found


def crate_units(root):
    """(unit name, root file) for each crate root under root/crates/*/src."""
    units = []
    crates_dir = os.path.join(root, "crates")
    for name in sorted(os.listdir(crates_dir)) if os.path.isdir(crates_dir) else []:
        src = os.path.join(crates_dir, name, "src")
        lib, main = os.path.join(src, "lib.rs"), os.path.join(src, "main.rs")
        if os.path.isfile(lib):
            units.append((name, lib))
        if os.path.isfile(main):
            units.append((f"{name} (bin)" if os.path.isfile(lib) else name, main))
    return units


def parse_units(root):
    """{unit: Tree} for each crate root under root/crates/*/src."""
    trees = {}
    for unit, root_file in crate_units(root):
        tree = Tree()
        parse_file(tree, root_file, (), os.path.dirname(root_file), root, set())
        trees[unit] = tree
    return trees


def find_circles(root, trees=None):
    circles, warnings = [], []
    for unit, tree in (trees or parse_units(root)).items():
        warnings.extend(tree.warnings)
        circles.extend(circles_of(unit, tree))
    return circles, warnings


# ---------------------------------------------------------------------------------------------
# Written orders of floors: arrows point down them only.


def read_orders(path):
    """[(line number, unit, head, [name, ...])] from `unit: head: names`: a written order of
    floors (`parent: top > ... > bottom`) or a limit on what a module reaches (`from -> to:
    child, ...`)."""
    orders = []
    if not os.path.isfile(path):
        return orders
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            unit, _, rest = text.partition(":")
            head, _, names = rest.rpartition(":")
            sep = "," if "->" in head else ">"
            orders.append((number, unit.strip(), head.strip(),
                           [name.strip() for name in names.split(sep)]))
    return orders


def module_path(text):
    return tuple(part for part in text.strip().split("::") if part)


def shown_refs(refs):
    return "".join(f"\n        {file}:{line} -> {path}" for file, line, path in refs)


def floor_errors(tree, unit, where, parent, floors):
    """An arrow from a sibling of `parent` to one named before it in `floors`."""
    errors = []
    rank = {floor: i for i, floor in enumerate(floors)}
    for (a, b), refs in sorted(sibling_arrows(tree).get(parent, {}).items()):
        if a in rank and b in rank and rank[a] > rank[b]:
            errors.append(f"{where}: `{a}` sits below `{b}` but uses it "
                          f"({unit}, under `{'::'.join(parent)}`):{shown_refs(refs)}")
    return errors


def reach_errors(tree, unit, where, source, target, allowed):
    """A reference from `source` (or below) into `target` that is not to one of its children
    in `allowed` (or below them)."""
    refs = []
    for reference in tree.references:
        found = resolve(tree, reference)
        if reference.module[:len(source)] != source or found is None \
                or found[:len(target)] != target:
            continue
        if len(found) == len(target) or found[len(target)] not in allowed:
            refs.append((reference.file, reference.line, "::".join(reference.segments)))
    if not refs:
        return []
    return [f"{where}: `{'::'.join(source)}` may use only {', '.join(allowed)} of "
            f"`{'::'.join(target)}` ({unit}):{shown_refs(sorted(refs))}"]


def order_errors(trees, orders, order_path):
    """Error messages: an arrow up a written order, a reach past a written limit, or a line
    naming a module that does not exist."""
    errors = []
    for number, unit, head, names in orders:
        where = f"{order_path}:{number}"
        tree = trees.get(unit)
        source, _, target = head.partition("->")
        source, target = module_path(source), module_path(target)
        parent = target if "->" in head else source
        modules = getattr(tree, "modules", set())
        wanted = [parent + (name,) for name in names] + ([source] if "->" in head else [])
        missing = ["::".join(path) for path in wanted if path not in modules]
        if missing:
            errors.append(f"{where}: no module {', '.join(missing)} in {unit}")
        elif "->" in head:
            errors.extend(reach_errors(tree, unit, where, source, target, names))
        else:
            errors.extend(floor_errors(tree, unit, where, source, names))
    return errors


# ---------------------------------------------------------------------------------------------
# The baseline and the ratchet.


def read_baseline(path):
    """{(unit, frozenset(members)): line number} from `unit: a <-> b <-> c` lines."""
    entries = {}
    if not os.path.isfile(path):
        return entries
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            unit, _, members = text.partition(":")
            entries[(unit.strip(), frozenset(m.strip() for m in members.split("<->")))] = number
    return entries


def print_circle(circle, out, header=True):
    if header:
        print(f"{circle.key()}", file=out)
    for a, b, refs in circle.edges:
        print(f"    {a} -> {b}", file=out)
        for file, line, path in refs:
            print(f"        {file}:{line} -> {path}", file=out)


def ratchet(circles, baseline, baseline_path):
    """Error messages: circles not in the baseline, grown, narrowed or gone."""
    errors = []
    matched = defaultdict(list)  # baseline entry -> circles overlapping it
    for circle in circles:
        members = set(circle.members)
        overlapping = [entry for entry in baseline
                       if entry[0] == circle.unit and entry[1] & members]
        for entry in overlapping:
            matched[entry].append(circle)
        known = set().union(*(entry[1] for entry in overlapping)) if overlapping else set()
        if not overlapping:
            errors.append((f"new circle between sibling modules: {circle.key()}\n"
                           "  break it (see ARCHITECTURE.md, the invariants); "
                           "references that make it:", circle))
        elif not members <= known:
            grown = ", ".join(sorted(members - known))
            errors.append((f"a known circle grew (new members: {grown}): {circle.key()}\n"
                           "  break the new arrows; references that make it:", circle))
    for entry, number in sorted(baseline.items(), key=lambda item: item[1]):
        now = matched.get(entry, [])
        listed = f"{entry[0]}: " + " <-> ".join(sorted(entry[1]))
        if not now:
            errors.append((f"{baseline_path}:{number}: this circle is gone, well done: "
                           f"delete the line `{listed}`", None))
        elif len(now) > 1 or set(now[0].members) < entry[1]:
            instead = "; ".join(f"`{c.key()}`" for c in now)
            errors.append((f"{baseline_path}:{number}: this circle is smaller now: replace "
                           f"the line `{listed}` with {instead}", None))
    return errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the repository (its crates/*/src are read); default: this script's")
    parser.add_argument("--baseline", help="the list of known circles "
                        f"(default: ROOT/{BASELINE_NAME})")
    parser.add_argument("--order", help="the written orders of floors "
                        f"(default: ROOT/{ORDER_NAME})")
    parser.add_argument("--report", action="store_true",
                        help="print every circle with its references and exit 0")
    args = parser.parse_args(argv)
    root = os.path.normpath(args.root)
    baseline_path = args.baseline or os.path.join(root, BASELINE_NAME)
    order_path = args.order or os.path.join(root, ORDER_NAME)
    trees = parse_units(root)
    circles, warnings = find_circles(root, trees)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.report:
        per_unit = defaultdict(int)
        for circle in circles:
            print_circle(circle, sys.stdout)
            per_unit[circle.unit] += 1
        for unit, count in sorted(per_unit.items()):
            print(f"{unit}: {count} circle{'s' if count != 1 else ''}")
        print(f"total: {len(circles)} circle{'s' if len(circles) != 1 else ''} "
              "between sibling modules")
        return 0
    shown = os.path.relpath(baseline_path, root)
    shown = baseline_path if shown.startswith("..") else shown
    errors = ratchet(circles, read_baseline(baseline_path), shown)
    shown_order = os.path.relpath(order_path, root)
    shown_order = order_path if shown_order.startswith("..") else shown_order
    orders = read_orders(order_path)
    errors += [(message, None) for message in order_errors(trees, orders, shown_order)]
    for message, circle in errors:
        print(f"error: {message}", file=sys.stderr)
        if circle is not None:
            print_circle(circle, sys.stderr, header=False)
    if errors:
        print(f"layers: {len(errors)} problem(s); `scripts/layers.py --report` lists every circle",
              file=sys.stderr)
        return 1
    print(f"layers: no new circle between sibling modules ({len(circles)} known, "
          f"listed in {shown}); {len(orders)} written order(s) held")
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    sys.exit(main())
