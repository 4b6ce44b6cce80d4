//! Figures against the reference tools run on the same counters (iostat, nicstat, nfsiostat, mpstat, pidstat -d), and one figure's one value everywhere it is printed.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cache_residency;
#[path = "../common/mod.rs"]
mod common;
mod dnfs;
mod dnfs_oracle;
mod exposition;
mod iostat;
mod mpstat;
mod nfs;
#[path = "../nfs_pairs/mod.rs"]
mod nfs_pairs;
mod nfsiostat;
mod nicstat;
mod old_kernels;
mod one_figure;
#[allow(unsafe_code)]
#[path = "../peer_tools/mod.rs"]
mod peer_tools;
mod pidstat;
