//! Who does the I/O: each process's storage and system-call I/O and its
//! block I/O delay (pidstat -d, iotop), from /proc/PID/io and stat, rolled
//! up by Oracle role and instance (DBWn, LGWR, ARCn, sessions, parallel
//! servers, ASM, Grid), on this host and every database node.

pub mod metrics;
pub mod model;
pub mod node;
pub mod pid;
pub mod report;
pub mod role;
pub mod source;
pub mod state;
pub mod table;
