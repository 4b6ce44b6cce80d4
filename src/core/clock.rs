//! The wall clock in milliseconds since the epoch: what samples, markers and
//! recordings are stamped with.

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
