//! Both encodings, as served, through the Prometheus project's own checks:
//! `promtool check metrics` (the 0.0.4 parser and its lint: HELP on every
//! family, `_total` on counters, base units) on the text format, and the
//! OpenMetrics reference parser of the Python client on OpenMetrics.
//! promtool 2.42 reads only the 0.0.4 text: on OpenMetrics it would find
//! a counter's HELP under the family's name without `_total`, and the
//! `info` and `unknown` types unknown.

use super::{PROMTOOL, PYTHON, families, get, have_om_parser, or_skip};
use std::io::Write;
use std::process::{Command, Stdio};
use strata::serve::{Limits, start_with};

fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> (bool, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn promtool_and_the_openmetrics_parser_accept_both_encodings() {
    let test = "promtool_and_the_openmetrics_parser_accept_both_encodings";
    if !or_skip(test, &[(PROMTOOL, "prometheus"), (PYTHON, "python3")]) {
        return;
    }
    if let Err(package) = have_om_parser() {
        if std::env::var("STRATA_REQUIRE_PROMETHEUS").as_deref() == Ok("1") {
            panic!("{test}: STRATA_REQUIRE_PROMETHEUS=1 but {package} is missing");
        }
        eprintln!("{test}: SKIPPED: apt-get install {package}");
        return;
    }
    let (server, publisher) =
        start_with("127.0.0.1:0".parse().unwrap(), None, Limits::default()).unwrap();
    publisher.publish(families(7));
    let addr = server.local_addr();

    let text = get(
        addr,
        "GET",
        "/metrics",
        &[("Accept", "text/plain;version=0.0.4")],
    );
    let (ok, said) = run_with_stdin(
        Command::new(PROMTOOL).args(["check", "metrics"]),
        &text.body,
    );
    assert!(
        ok && said.trim().is_empty(),
        "promtool check metrics:\n{said}\n{}",
        text.text()
    );

    let om = get(
        addr,
        "GET",
        "/metrics",
        &[("Accept", "application/openmetrics-text; version=1.0.0")],
    );
    // the parser reads every family back: name, type, unit, help and samples
    let script = r#"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
for f in text_string_to_metric_families(sys.stdin.read()):
    print(f.name, f.type, repr(f.unit), repr(f.documentation))
    for s in f.samples:
        print(" ", s.name, sorted(s.labels.items()), repr(s.value))
"#;
    let (ok, said) = run_with_stdin(Command::new(PYTHON).args(["-c", script]), &om.body);
    assert!(ok, "OpenMetrics parser:\n{said}\n{}", om.text());
    let want = r#"node_disk_reads_completed counter '' 'The total number of reads completed successfully.'
  node_disk_reads_completed_total [('device', 'sda'), ('node', 'db1')] 1241
  node_disk_reads_completed_total [('device', 'nvme0n1'), ('node', 'db1')] 9007199254740992
node_disk_read_time_seconds counter 'seconds' 'The total number of seconds spent by all reads.'
  node_disk_read_time_seconds_total [('device', 'sda'), ('node', 'db1')] 19.345
strata_test_dirty_bytes gauge 'bytes' 'Memory waiting for writeback (Dirty in /proc/meminfo).'
  strata_test_dirty_bytes [('node', 'db "1" \\ x\ny')] 1.5e-07
  strata_test_dirty_bytes [('node', 'db2')] 4096
node_vmstat_pgpgin unknown '' '/proc/vmstat information field pgpgin.'
  node_vmstat_pgpgin [('node', 'db1')] 84
strata_build info '' "strata's version."
  strata_build_info [('version', '0.1.0')] 1
strata_test_tick gauge '' "The test's tick."
  strata_test_tick [] 7
"#;
    assert_eq!(said, want);

    // and the OpenMetrics text is no valid 0.0.4, nor the other way round:
    // each check tells the formats apart
    let (ok, _) = run_with_stdin(Command::new(PROMTOOL).args(["check", "metrics"]), &om.body);
    assert!(!ok);
    let (ok, _) = run_with_stdin(Command::new(PYTHON).args(["-c", script]), &text.body);
    assert!(!ok);
}
