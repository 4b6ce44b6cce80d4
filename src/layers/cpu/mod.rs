//! The CPU layer: what each CPU spends its time on (mpstat -P ALL), the
//! run queue, load, context switches, interrupts and swapping (vmstat,
//! sar -q, -w, -W), and the pressure stall information of cpu, io and
//! memory (sar -q ALL), from /proc/stat, /proc/loadavg, /proc/vmstat and
//! /proc/pressure. %iowait and io pressure sit beside the disks: they say
//! whether the host waits on its storage.

pub mod loadavg;
pub mod metrics;
pub mod model;
pub mod pressure;
pub mod report;
pub mod source;
pub mod stat;
pub mod state;
