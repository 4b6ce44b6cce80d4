//! A recording's inputs folded into each panel's figures, through the code
//! the live app uses: the same baselines turn samples into ticks, the same
//! [`Cells`] turns cell events into rounds. What [`App::apply`] does with an
//! input, minus the screen.
//!
//! [`App::apply`]: crate::app::App::apply

use crate::app::Input;
use crate::app::cells::Cells;
use crate::app::dnfs::Dnfs;
use crate::core::boundary::FirstInterval;
use crate::core::duration::Interval;
use crate::layers::LayerId;
use crate::layers::dnfs::source::{DbEvent, DbStatus};
use crate::layers::host::{HostBaselines, HostSample, HostStep};
use crate::recording::session::Meta;
use std::collections::HashMap;

/// What one input gave.
#[derive(Debug)]
pub enum Step {
    /// A host layer's figures over an interval.
    Host(Box<HostStep>),
    /// A round of the cells closed (a point of the all-cell history, as the
    /// overview charts it): its time, and the app's clock it was taken at.
    Cells { at_ms: i64, now_ms: i64 },
    /// A database's reading gave figures: the reading's wall clock.
    Dnfs { db: usize, at_ms: i64 },
    /// A database node's host layer.
    Node { node: usize, step: Box<Step> },
    /// A source's error, or what a cell wrote on stderr.
    Note {
        panel: LayerId,
        at_ms: i64,
        text: String,
    },
}

impl Step {
    pub fn panel(&self) -> LayerId {
        match self {
            Step::Host(h) => h.layer(),
            Step::Cells { .. } => LayerId::Cells,
            Step::Dnfs { .. } => LayerId::Dnfs,
            Step::Note { panel, .. } => *panel,
            Step::Node { step, .. } => step.panel(),
        }
    }

    /// The node a step is of (`None`: the recording's own host), and the
    /// step itself.
    pub fn of_node(&self) -> (Option<usize>, &Step) {
        match self {
            Step::Node { node, step } => (Some(*node), step),
            other => (None, other),
        }
    }

    /// The time a row of this step carries: the sample's own wall clock
    /// (the end of its interval), or the round's.
    pub fn at_ms(&self) -> i64 {
        match self {
            Step::Host(h) => h.at_ms(),
            Step::Cells { at_ms, .. } | Step::Dnfs { at_ms, .. } | Step::Note { at_ms, .. } => {
                *at_ms
            }
            Step::Node { step, .. } => step.at_ms(),
        }
    }
}

/// Samples of history a cell keeps here: only the newest is read.
const CELL_HISTORY: usize = 2;

/// One host's baselines: this machine's, or a node's.
#[derive(Default)]
struct Host {
    baselines: HostBaselines,
    /// Each panel's first interval.
    firsts: HashMap<LayerId, FirstInterval>,
}

/// The state the figures are computed from.
pub struct Walker {
    only: Option<LayerId>,
    local: Host,
    /// Each database node's, in `Meta::nodes` order.
    nodes: Vec<Host>,
    pub cells: Cells,
    pub dnfs: Dnfs,
    /// The app's clock: the newest `Input::Clock`, 0 before the first, as
    /// in [`crate::app::App`].
    now_ms: i64,
    cells_seq: u64,
    /// The run's interval: a first interval shorter than half of it is
    /// left out, a host layer's (see [`Host`]'s steps) or a cell's in a
    /// round (see [`Walker::round`]).
    interval: Interval,
    /// Each cell's first interval, as a round counts it.
    cell_firsts: Vec<FirstInterval>,
}

impl Walker {
    /// A walker of the run `meta` describes; `only` skips the inputs of
    /// every other panel.
    pub fn new(meta: &Meta, only: Option<LayerId>) -> Walker {
        Walker {
            only,
            local: Host::default(),
            nodes: meta.nodes.iter().map(|_| Host::default()).collect(),
            cells: Cells::new(meta.cells.clone(), meta.interval(), CELL_HISTORY),
            dnfs: Dnfs::new(meta.dbs.clone(), meta.interval(), CELL_HISTORY),
            now_ms: 0,
            cells_seq: 0,
            interval: meta.interval(),
            cell_firsts: vec![FirstInterval::default(); meta.cells.len()],
        }
    }

    fn wants(&self, p: LayerId) -> bool {
        self.only.is_none_or(|o| o == p)
    }

    /// Applies the input recorded at `at_ms`. A sample gives figures when
    /// it closes an interval (not the first, nor one after a reboot).
    pub fn apply(&mut self, at_ms: i64, input: Input) -> Option<Step> {
        let note = |panel, text: String| Some(Step::Note { panel, at_ms, text });
        use LayerId as P;
        let ask = Ask {
            at_ms,
            only: self.only,
            interval_ms: self.interval.ms(),
        };
        let input = match input.into_host() {
            Ok(sample) => return self.local.step(sample, ask),
            Err(other) => *other,
        };
        match input {
            Input::Node { node, input } => {
                let host = self.nodes.get_mut(node)?;
                let step = host.step(input.into_host()?, ask)?;
                Some(Step::Node {
                    node,
                    step: Box::new(step),
                })
            }
            Input::Cell(ev) if self.wants(P::Cells) => {
                let said = self.cells.ingest(self.now_ms, ev);
                self.round().or_else(|| {
                    let (label, text) = said?;
                    note(P::Cells, format!("{label}: {text}"))
                })
            }
            Input::Db(DbEvent::Sample { db, sample }) if self.wants(P::Dnfs) => {
                let at_ms = sample.wall_ms;
                let before = self.dnfs.list.get(db)?.layer.history.seq();
                self.dnfs.ingest(DbEvent::Sample { db, sample });
                (self.dnfs.list.get(db)?.layer.history.seq() != before)
                    .then_some(Step::Dnfs { db, at_ms })
            }
            Input::Db(DbEvent::Status { db, status }) if self.wants(P::Dnfs) => {
                let failed = !matches!(status, DbStatus::Connecting | DbStatus::Live);
                self.dnfs.ingest(DbEvent::Status { db, status });
                if !failed {
                    return None;
                }
                let v = self.dnfs.list.get(db)?;
                let why = v.state_label(at_ms, self.dnfs.interval.ms());
                note(P::Dnfs, format!("{}: {why}", v.target.label))
            }
            Input::Clock { now_ms, .. } => {
                self.now_ms = now_ms;
                if !self.wants(P::Cells) {
                    return None;
                }
                self.cells.close_round(now_ms);
                self.round()
            }
            _ => None,
        }
    }

    /// The round the cells' history gained since the last call, if any.
    fn round(&mut self) -> Option<Step> {
        let h = &self.cells.history.history;
        if h.seq() == self.cells_seq {
            return None;
        }
        self.cells_seq = h.seq();
        let at_ms = *h.times(h.seq(), 1).last()?;
        // As a host layer's short first interval: a round that counts a
        // cell's first interval, shorter than half the run's (the sampler
        // aligning on the clock), is left out, said as a note.
        let (now_ms, itv) = (self.now_ms, self.cells.interval.ms());
        let mut short = None;
        for (c, first) in self.cells.list.iter().zip(&mut self.cell_firsts) {
            let Some(cs) = c
                .current_groups(now_ms, itv)
                .and_then(|_| c.disks.latest.as_ref()?.itv_cs)
            else {
                continue;
            };
            if let Some(why) = first.left_out(cs, self.interval.ms()) {
                short.get_or_insert_with(|| format!("{}: {why}", c.link.target.label));
            }
        }
        Some(match short {
            Some(text) => Step::Note {
                panel: LayerId::Cells,
                at_ms,
                text,
            },
            None => Step::Cells { at_ms, now_ms },
        })
    }

    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }
}

/// What a host layer's sample is taken with.
#[derive(Clone, Copy)]
struct Ask {
    /// When it was recorded.
    at_ms: i64,
    only: Option<LayerId>,
    interval_ms: i64,
}

impl Host {
    fn first(&mut self, panel: LayerId) -> &mut FirstInterval {
        self.firsts.entry(panel).or_default()
    }

    /// A sample's step: figures when it closes an interval (not the first,
    /// nor one after a reboot), its error as a note; nothing for a panel
    /// not asked for. A first interval shorter than half the run's (the
    /// recorder started between two boundaries) gives a note instead of
    /// figures, by [`FirstInterval`]'s rule.
    fn step(&mut self, sample: HostSample, ask: Ask) -> Option<Step> {
        let (panel, tick) = self.baselines.tick(sample);
        if ask.only.is_some_and(|o| o != panel) {
            return None;
        }
        let note = |text| Step::Note {
            panel,
            at_ms: ask.at_ms,
            text,
        };
        match tick {
            Ok(step) => {
                let cs = step.itv_cs()?;
                if let Some(why) = self.first(panel).left_out(cs, ask.interval_ms) {
                    return Some(note(why));
                }
                Some(Step::Host(Box::new(step)))
            }
            Err(e) => Some(note(e.to_string())),
        }
    }
}
