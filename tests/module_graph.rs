//! The top-level modules of src/ form a one-way graph: this test reads every
//! source file, collects which top-level module refers to which (`crate::x`
//! paths, `use crate::{x, y}` groups, `super::` chains that climb to the crate
//! root, and `strata::x` from the binary), and fails on any cycle, naming it.
//! It reads text instead of asking the compiler so it needs no extra tool in
//! CI; comments, strings and char literals are blanked first so prose and
//! fixtures cannot add or hide an edge.
//!
//! `cargo test --test module_graph -- --nocapture` prints the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The node the binary's root (src/main.rs) stands for.
const MAIN: &str = "main";

#[test]
fn top_level_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = scan(&src);
    assert!(
        graph.len() > 5,
        "found only {} top-level modules under {}: the scan is broken",
        graph.len(),
        src.display()
    );
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(edges > 5, "found only {edges} edges: the scan is broken");
    println!("{}", render(&graph));
    let tangles: Vec<String> = components(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.into_iter().collect::<Vec<_>>().join(", "))
        .collect();
    let cycles = cycles(&graph);
    assert!(
        cycles.is_empty(),
        "import cycles between top-level modules (each module may use only those \
         below it):\n{}\nmodules that reach each other: {}",
        cycles
            .iter()
            .map(|c| format!("  {}", c.join(" -> ")))
            .collect::<Vec<_>>()
            .join("\n"),
        tangles.join("; ")
    );
    println!("{}", render_levels(&levels(&graph)));
}

#[test]
fn cycle_finder_sees_a_cycle_in_a_small_graph() {
    let g = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "e")]);
    let found = cycles(&g);
    assert_eq!(found, vec![vec!["a", "b", "c", "a"]]);
    let g = graph(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "c")]);
    assert!(cycles(&g).is_empty());
    let l = levels(&g);
    assert_eq!((l["a"], l["b"], l["c"], l["d"]), (2, 1, 0, 1));
    let g = graph(&[
        ("x", "y"),
        ("y", "x"),
        ("p", "q"),
        ("q", "r"),
        ("r", "p"),
        ("q", "p"),
    ]);
    assert_eq!(
        cycles(&g),
        vec![
            vec!["p", "q", "p"],
            vec!["p", "q", "r", "p"],
            vec!["x", "y", "x"]
        ]
    );
}

#[test]
fn scanner_reads_paths_groups_and_super_chains_but_not_prose() {
    let mods: BTreeSet<String> = ["app", "model", "source", "store", "ui", "theme"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = r####"
        //! Mentions crate::ui in a doc comment.
        use crate::{model::Tick, store::{self, Ring}};
        use crate::source as src;
        /* crate::theme /* nested */ crate::theme */
        fn f() -> &'static str { let _ = crate::store::x(); "crate::theme" }
        const C: char = '"';
        const R: &str = r#"crate::ui"#;
        mod inner { fn g() { super::super::app::go(); } }
        pub(crate) fn h() {}
        "####;
    let refs = references(text, &["model".to_string()], &mods, "crate");
    let want: BTreeSet<String> = ["model", "source", "store", "app"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(refs, want);
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry(a.to_string()).or_default().insert(b.to_string());
        g.entry(b.to_string()).or_default();
    }
    g
}

/// The graph over top-level modules (those `mod`-declared in lib.rs, plus
/// `main` for the binary), without self edges.
fn scan(src: &Path) -> Graph {
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let mods: BTreeSet<String> = tokens(&blank(&lib))
        .windows(3)
        .filter(|w| w[0] == "mod" && w[2] == ";")
        .map(|w| w[1].clone())
        .collect();
    let mut g: Graph = mods.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    for file in files {
        let rel = file.strip_prefix(src).unwrap_or(&file);
        let mut path: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if path.last().is_some_and(|l| l == "mod") {
            path.pop();
        }
        let (node, root) = match path.first().map(String::as_str) {
            Some("lib") => continue,
            Some("main") => (MAIN.to_string(), "strata"),
            Some(top) if mods.contains(top) => (top.to_string(), "crate"),
            _ => continue,
        };
        if node == MAIN {
            path.clear();
        }
        let text = fs::read_to_string(&file).unwrap_or_default();
        let targets = references(&text, &path, &mods, root);
        let out = g.entry(node.clone()).or_default();
        out.extend(targets.into_iter().filter(|t| *t != node));
    }
    g
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules a file refers to. `path` is the file's module path
/// (`["source", "cells"]` for src/source/cells/mod.rs); `root` is the word
/// that names the library's root in this file (`crate`, or `strata` in the
/// binary).
fn references(
    text: &str,
    path: &[String],
    mods: &BTreeSet<String>,
    root: &str,
) -> BTreeSet<String> {
    let toks = tokens(&blank(text));
    let mut out = BTreeSet::new();
    // Inline `mod name { ... }` blocks deepen the module path for `super::`.
    let mut braces: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        if t == "{" {
            braces.push(i >= 2 && toks[i - 2] == "mod");
        } else if t == "}" {
            braces.pop();
        }
        let depth = path.len() + braces.iter().filter(|&&m| m).count();
        let after_sep = i == 0 || toks[i - 1] != "::";
        if after_sep && (t == root || t == "$crate") && toks.get(i + 1).is_some_and(|s| s == "::") {
            path_targets(&toks, i + 2, mods, &mut out);
        } else if after_sep && t == "super" {
            let mut k = i;
            let mut ups = 0;
            while toks.get(k).is_some_and(|s| s == "super")
                && toks.get(k + 1).is_some_and(|s| s == "::")
            {
                ups += 1;
                k += 2;
            }
            if ups >= depth && root == "crate" {
                path_targets(&toks, k, mods, &mut out);
            }
            i = k.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Reads the first segment(s) after `root::`: a name, or a `{...}` group
/// whose items each start with a name.
fn path_targets(toks: &[String], at: usize, mods: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    match toks.get(at).map(String::as_str) {
        Some("{") => {
            let mut level = 0;
            let mut item_start = true;
            for t in &toks[at..] {
                match t.as_str() {
                    "{" => {
                        level += 1;
                        item_start = level == 1;
                        continue;
                    }
                    "}" => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    "," if level == 1 => {
                        item_start = true;
                        continue;
                    }
                    name if item_start && level == 1 && mods.contains(name) => {
                        out.insert(name.to_string());
                    }
                    _ => {}
                }
                item_start = false;
            }
        }
        Some(name) if mods.contains(name) => {
            out.insert(name.to_string());
        }
        _ => {}
    }
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The text with comments, string literals and char literals replaced by
/// spaces, so only code is left to tokenise.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let at = |k: usize| c.get(k).copied();
        if c[i] == '/' && at(i + 1) == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && at(i + 1) == Some('*') {
            let mut level = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == Some('*') {
                    level += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == Some('/') {
                    level -= 1;
                    i += 2;
                    if level == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c[i] == 'r' || (c[i] == 'b' && at(i + 1) == Some('r')))
            && (i == 0 || !ident(c[i - 1]))
            && {
                let mut k = i + if c[i] == 'b' { 2 } else { 1 };
                while at(k) == Some('#') {
                    k += 1;
                }
                at(k) == Some('"')
            }
        {
            let mut k = i + if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(k) == Some('#') {
                hashes += 1;
                k += 1;
            }
            k += 1;
            while k < c.len() {
                if c[k] == '"' && (1..=hashes).all(|h| at(k + h) == Some('#')) {
                    k += 1 + hashes;
                    break;
                }
                k += 1;
            }
            i = k;
            out.push(' ');
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c[i] == '\'' {
            // A char literal closes within a few characters ('a', '\n',
            // '\u{1F600}'); a lifetime ('a) does not.
            let close = if at(i + 1) == Some('\\') {
                (i + 3..c.len().min(i + 12)).find(|&k| c[k] == '\'')
            } else if at(i + 2) == Some('\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    i = k + 1;
                    out.push(' ');
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The cycles through each edge that lies on one: for every edge `a -> b`
/// inside a strongly connected component, the shortest way from `b` back to
/// `a`. Each cycle starts at its smallest name and is closed on it.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let mut out = BTreeSet::new();
    for comp in components(g).into_iter().filter(|c| c.len() > 1) {
        for a in &comp {
            for b in g.get(a).into_iter().flatten().filter(|b| comp.contains(*b)) {
                let Some(mut cycle) = shortest_path(g, &comp, b, a) else {
                    continue;
                };
                cycle.insert(0, a.clone());
                cycle.pop();
                let Some(low) = (0..cycle.len()).min_by_key(|&i| &cycle[i]) else {
                    continue;
                };
                cycle.rotate_left(low);
                cycle.push(cycle[0].clone());
                out.insert(cycle);
            }
        }
    }
    out.into_iter().collect()
}

/// A shortest path from `from` to `to` that stays inside `comp`, both ends
/// included.
fn shortest_path(g: &Graph, comp: &BTreeSet<String>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from.to_string()]);
    let mut seen = BTreeSet::from([from.to_string()]);
    while let Some(n) = queue.pop_front() {
        if n == to {
            let mut path = vec![n.clone()];
            let mut at = n;
            while let Some(p) = prev.get(&at) {
                path.push(p.clone());
                at = p.clone();
            }
            path.reverse();
            return Some(path);
        }
        for m in g
            .get(&n)
            .into_iter()
            .flatten()
            .filter(|m| comp.contains(*m))
        {
            if seen.insert(m.clone()) {
                prev.insert(m.clone(), n.clone());
                queue.push_back(m.clone());
            }
        }
    }
    None
}

/// Strongly connected components (Tarjan), each as a sorted set.
fn components(g: &Graph) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(lw));
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    comp.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                self.out.push(comp);
            }
        }
    }
    let mut t = Tarjan {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

/// Each module's height in an acyclic graph: 0 for one that uses no other,
/// else one more than the highest it uses.
fn levels(g: &Graph) -> BTreeMap<String, usize> {
    fn level(g: &Graph, n: &str, memo: &mut BTreeMap<String, usize>) -> usize {
        if let Some(&l) = memo.get(n) {
            return l;
        }
        let l = g
            .get(n)
            .into_iter()
            .flatten()
            .map(|m| level(g, m, memo) + 1)
            .max()
            .unwrap_or(0);
        memo.insert(n.to_string(), l);
        l
    }
    let mut memo = BTreeMap::new();
    for n in g.keys() {
        level(g, n, &mut memo);
    }
    memo
}

/// The modules by height, lowest first: each uses only modules on lines
/// above its own.
fn render_levels(levels: &BTreeMap<String, usize>) -> String {
    let mut by: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (n, l) in levels {
        by.entry(*l).or_default().push(n);
    }
    let mut s = String::from("layers, lowest first (each uses only those on lines above):\n");
    for (l, ns) in by {
        s.push_str(&format!("  {l}: {}\n", ns.join(", ")));
    }
    s
}

/// The edge list, one `from -> to, to` line per module.
fn render(g: &Graph) -> String {
    let mut s = String::from("module graph (from -> what it uses):\n");
    for (from, to) in g {
        let to: Vec<&str> = to.iter().map(String::as_str).collect();
        s.push_str(&format!("  {from} -> {}\n", to.join(", ")));
    }
    s
}
