//! The name a database store value holds leases under: readable in an error message ("a
//! turn of session X runs on `build-7/4121/3f9a1c2e`") and unique across processes.

/// `HOST/PID/RANDOM`: the machine, the process and 32 random bits (two store values in one
/// process hold leases separately).
pub(super) fn default_holder() -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{}/{}/{}", host_name(), std::process::id(), &random[..8])
}

/// The machine's name, as far as it can be found without a system call of its own.
fn host_name() -> String {
    let from_file = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned());
    from_file
        .into_iter()
        .chain(
            ["HOSTNAME", "COMPUTERNAME"]
                .into_iter()
                .filter_map(|name| std::env::var(name).ok()),
        )
        .find(|name| !name.is_empty() && name.len() <= 64)
        .unwrap_or_else(|| "host".to_owned())
}
