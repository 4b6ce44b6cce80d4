//! The process panel: its roles, a role's processes and one process, on
//! one host and in the cluster, from samples the layer's own table made.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::procs::{procs_app, procs_cluster_app};
use common::render;
use strata::app::{Action, App, Panel, View};

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).expect("panel");
    app.update(Action::GotoPanel(i));
}

#[test]
fn dump() {
    let mut app = procs_app();
    goto(&mut app, Panel::Procs);
    for (w, h) in [(80, 24), (120, 40)] {
        println!("{}", render(&mut app, w, h));
    }
    app.update(Action::Enter);
    println!("{}", render(&mut app, 80, 24));
    println!("{}", render(&mut app, 120, 40));
    app.update(Action::Enter);
    println!("{}", render(&mut app, 80, 24));
    println!("{}", render(&mut app, 120, 40));
    let mut app = procs_cluster_app();
    println!("{}", render(&mut app, 80, 24));
    println!("{}", render(&mut app, 160, 30));
    goto(&mut app, Panel::Procs);
    println!("{}", render(&mut app, 120, 40));
    let _ = View::Panel(Panel::Procs);
}
