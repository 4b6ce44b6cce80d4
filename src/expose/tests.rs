use super::*;

type Exposition1 = [Series; 1];

#[test]
fn the_families_page_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/metric-families.md");
    let want = families_page();
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        if std::env::var_os("STRATA_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        panic!(
            "docs/metric-families.md is out of date; run STRATA_BLESS=1 cargo test --lib expose"
        );
    }
}

#[test]
fn no_family_is_declared_twice() {
    let mut seen = std::collections::BTreeSet::new();
    for (_, _, f) in catalogue() {
        assert!(seen.insert(f.name), "{} is declared twice", f.name);
        // OpenMetrics: a unit is the end of the family's name, and a
        // counter's series end in _total.
        if !f.unit.is_empty() {
            assert!(
                f.family_name().ends_with(&format!("_{}", f.unit)),
                "{}",
                f.name
            );
        }
        assert_eq!(
            f.name.ends_with("_total"),
            f.kind == crate::layers::metric::MetricType::Counter,
            "{}",
            f.name
        );
        assert!(!f.help.is_empty() && !f.source.is_empty(), "{}", f.name);
        // and the server's model takes it as declared
        let e: Exposition1 = [Series {
            family: f,
            samples: vec![Sample {
                labels: Vec::new(),
                value: 1.0,
            }],
        }];
        assert_eq!(to_metrics(&e.to_vec()).families().len(), 1, "{}", f.name);
    }
    assert!(seen.len() > 100, "{} families", seen.len());
}
