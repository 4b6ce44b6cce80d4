//! The NIC layer of the app: interfaces with nicstat's figures, the wire
//! total and the bonds.

use super::host::HostLayers;
use super::state::App;
use crate::core::error::SampleError;
use crate::layers::nics::bond::BondRow;
use crate::layers::nics::model::{NicCol, NicRates};
use crate::layers::nics::source::{NicKind, NicSample};
use crate::layers::nics::tick::NicRow;

/// A figure of the NIC table: one of nicstat's, or errors or drops of
/// both directions together (each direction is in the detail view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NicFig {
    Col(NicCol),
    Errors,
    Drops,
}

impl NicFig {
    /// The column's header: nicstat's, from the layer's table, or one of
    /// the two sums.
    pub fn header(self) -> &'static str {
        match self {
            NicFig::Col(c) => c.def().header,
            NicFig::Errors => "errs/s",
            NicFig::Drops => "drops/s",
        }
    }
}

/// The NIC panel's figure columns, in order.
pub const NIC_TABLE: [NicFig; 12] = [
    NicFig::Col(NicCol::RKbPerS),
    NicFig::Col(NicCol::WKbPerS),
    NicFig::Col(NicCol::RPkPerS),
    NicFig::Col(NicCol::WPkPerS),
    NicFig::Col(NicCol::RAvs),
    NicFig::Col(NicCol::WAvs),
    NicFig::Col(NicCol::Util),
    NicFig::Col(NicCol::Sat),
    NicFig::Col(NicCol::RUtil),
    NicFig::Col(NicCol::WUtil),
    NicFig::Errors,
    NicFig::Drops,
];

/// An interface's history holds the panel's figures, in its order.
pub const NIC_HISTORY: usize = NIC_TABLE.len();

/// The history entity that holds the physical interfaces' total.
pub const WIRE_ENTITY: &str = "\u{2211}wire";

pub fn nic_figure(rates: Option<&NicRates>, fig: NicFig) -> Option<f64> {
    let r = rates?;
    let both = |a, b| Some(r.get(a)? + r.get(b)?);
    match fig {
        NicFig::Col(c) => r.get(c),
        NicFig::Errors => both(NicCol::RErrPerS, NicCol::WErrPerS),
        NicFig::Drops => both(NicCol::RDropPerS, NicCol::WDropPerS),
    }
}

/// Index in [`NIC_TABLE`] (and so in history) of a figure.
pub fn nic_index(fig: NicFig) -> usize {
    NIC_TABLE.iter().position(|f| *f == fig).unwrap_or(0)
}

/// Whether the panel lists an interface: by default, as nicstat, those
/// that have seen a packet, and not the host's own plumbing (loopback,
/// veths, tunnels); `a` shows them all.
pub fn nic_listed(r: &NicRow, all: bool) -> bool {
    all || (r.shown(false)
        && !matches!(
            r.kind(),
            NicKind::Loopback | NicKind::Veth | NicKind::Virtual
        ))
}

impl App {
    /// The interfaces shown, filtered and sorted as the user asked.
    pub fn nic_rows(&self) -> Vec<&NicRow> {
        self.rows_in::<super::cluster::Nics>(self.host())
    }

    pub fn nic_row(&self, name: &str) -> Option<&NicRow> {
        self.host()
            .nics
            .tick()?
            .rows
            .iter()
            .find(|r| r.name == name)
    }

    pub fn bond(&self, name: &str) -> Option<&BondRow> {
        self.host().bond(name)
    }

    /// The slaves of a bond, in the bonding file's order.
    pub fn bond_slave_names(&self, name: &str) -> Vec<String> {
        self.bond(name).map_or(Vec::new(), |b| {
            b.slaves.iter().map(|s| s.slave.name.clone()).collect()
        })
    }
}

impl HostLayers {
    /// The bond `name` of this host, if it is one.
    pub fn bond(&self, name: &str) -> Option<&BondRow> {
        self.nics.tick()?.bonds().iter().find(|b| b.name() == name)
    }

    /// Takes a sample of /proc/net/dev, /sys/class/net and the bonds.
    pub fn ingest_nics(&mut self, sample: impl std::borrow::Borrow<NicSample>) {
        let sample = sample.borrow();
        let tick = self.nic_baseline.tick(sample);
        if self.routes != sample.routes {
            self.routes.clone_from(&sample.routes);
        }
        let spans = tick.itv_cs.is_some();
        self.nics
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let hist = |r: Option<&NicRates>| -> [Option<f32>; NIC_HISTORY] {
                    std::array::from_fn(|i| nic_figure(r, NIC_TABLE[i]).map(|v| v as f32))
                };
                let rows: Vec<(&str, [Option<f32>; NIC_HISTORY])> = tick
                    .rows
                    .iter()
                    .map(|r| (r.name.as_str(), hist(r.rates.as_ref())))
                    .collect();
                let total = hist(tick.total.as_ref());
                layer.history.push(
                    tick.wall_ms,
                    rows.iter()
                        .map(|(n, v)| (*n, &v[..]))
                        .chain(std::iter::once((WIRE_ENTITY, &total[..]))),
                );
            });
    }
    pub fn nics_failed(&mut self, error: SampleError) {
        self.nics.failed(error);
    }
}
