//! strata: a live terminal monitor for the storage path of a database.
//!
//! ```text
//!  source (IO only)     model (pure)                                  store (rings)      ui (view)
//!  /proc, /sys ─► DiskSample ─► Baseline::tick: rates over the ─┬─► SourceHistory ─► draw(&App)
//!  under --root                 source's own uptime interval    └─► batch printers (text, JSON, CSV)
//! ```
//!
//! Parsers are pure, sources only read, the model is arithmetic, the store is
//! bounded, and the view draws from the app state and theme alone. Each
//! layer's parsers, source, model and batch report sit in one folder under
//! [`layers`], whose registry the CLI, live, batch, export and the footer
//! read (docs/adding-a-layer.md).

pub mod app;
pub mod batch;
pub mod check;
pub mod cli;
pub mod config;
pub mod core;
pub mod event_loop;
pub mod export;
pub mod expose;
pub mod format;
pub mod frame_log;
pub mod layers;
pub mod link;
pub mod live;
pub mod metrics;
pub mod recfile;
pub mod recording;
pub mod remote;
pub mod replay;
pub mod serve;
pub mod store;
pub mod theme;
pub mod ui;
