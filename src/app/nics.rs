//! The NIC layer of the app: interfaces with nicstat's figures, the wire
//! total and the bonds.

use super::state::App;
use crate::layers::host::HostLayers;
use crate::layers::nics::bond::BondRow;
use crate::layers::nics::tick::NicRow;

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
}
