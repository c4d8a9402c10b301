//! The crate's shape, checked so that it cannot drift: which module uses which, read
//! from the source with a Rust parser (every `use` and every `crate::`/`super::`/
//! `self::` path in code, not in comments or test modules).
//!
//! - No circle between the folders of `src/` (`codec`, `catalog`, `store`, ...), nor
//!   between the files inside one folder.
//! - A short list of directions that must never appear: `games` uses nothing else of
//!   the crate (every game stays a pure state machine); `text` likewise; `codec` uses
//!   nothing above it; `records` never uses `net` or `console`; `store` uses no
//!   `players`, `seat` or `web`; `races` uses no `players`.
//! - No source file over 700 lines of non-test code.
//! - docs/developing.md's module map names every folder and top-level file of `src/`,
//!   and nothing that is not there.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The longest a source file may be, in lines before its test module.
const MAX_LINES: usize = 700;

/// Directions that must never appear: (from, to), as folders of `src/`.
const FORBIDDEN: &[(&str, &str)] = &[
    ("records", "net"),
    ("records", "console"),
    ("store", "players"),
    ("store", "seat"),
    ("store", "web"),
    ("races", "players"),
    ("races", "seat"),
    ("players", "seat"),
    ("players", "cluster"),
];

/// Folders that use nothing else of the crate.
const LEAVES: &[&str] = &["games", "text"];

/// Folders that use only these others.
const ONLY: &[(&str, &[&str])] = &[
    ("codec", &["games", "text"]),
    ("solver", &["games"]),
    ("agents", &["games", "solver"]),
    ("ladders", &["text"]),
    // The hand-over moves descriptors and says what they are; it knows no session.
    ("upgrade", &["text"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read a source folder") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// The module path of a file of the library (`src/seat/chat.rs` is `seat::chat`,
/// `src/seat/mod.rs` is `seat`), or `None` for the binaries.
fn module_of(file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src()).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .first()
        .is_some_and(|first| first == "bin" || first == "main")
    {
        return None;
    }
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    Some(parts)
}

/// Whether an item is only compiled for tests.
fn is_test_only(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// Collects the paths a file uses, resolved against the file's own module.
struct Uses<'a> {
    module: &'a [String],
    paths: Vec<Vec<String>>,
}

impl Uses<'_> {
    /// `crate::a::b`, `super::x`, `self::y` made absolute; other paths (std, other
    /// crates, local names) are not the crate's modules.
    fn add(&mut self, segments: Vec<String>) {
        let Some(first) = segments.first() else {
            return;
        };
        let absolute = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "self" => [self.module, &segments[1..]].concat(),
            "super" => {
                let mut base = self.module.to_vec();
                let mut rest = &segments[..];
                while rest.first().is_some_and(|segment| segment == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                [base, rest.to_vec()].concat()
            }
            _ => return,
        };
        self.paths.push(absolute);
    }

    fn tree(&mut self, prefix: Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                let mut prefix = prefix;
                prefix.push(path.ident.to_string());
                self.tree(prefix, &path.tree);
            }
            syn::UseTree::Name(name) => {
                let mut path = prefix;
                if name.ident != "self" {
                    path.push(name.ident.to_string());
                }
                self.add(path);
            }
            syn::UseTree::Rename(rename) => {
                let mut path = prefix;
                path.push(rename.ident.to_string());
                self.add(path);
            }
            syn::UseTree::Glob(_) => self.add(prefix),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.tree(prefix.clone(), tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if !is_test_only(&item.attrs) {
            self.tree(Vec::new(), &item.tree);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.add(
            path.segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect(),
        );
        syn::visit::visit_path(self, path);
    }
}

/// The crate's modules and, for each, the modules it uses.
struct Graph {
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

impl Graph {
    fn read() -> Graph {
        let mut files = Vec::new();
        rust_files(&src(), &mut files);
        let modules: BTreeMap<Vec<String>, PathBuf> = files
            .iter()
            .filter_map(|file| Some((module_of(file)?, file.clone())))
            .collect();
        assert!(modules.len() > 40, "{modules:?}");
        let mut edges = BTreeMap::new();
        for (module, file) in &modules {
            let text = std::fs::read_to_string(file).expect("read a source file");
            let syntax = syn::parse_file(&text)
                .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
            let mut uses = Uses {
                module,
                paths: Vec::new(),
            };
            uses.visit_file(&syntax);
            let mut targets = BTreeSet::new();
            for path in uses.paths {
                // The longest prefix of the path that is a module of the crate.
                let target = (1..=path.len())
                    .rev()
                    .map(|length| path[..length].to_vec())
                    .find(|prefix| modules.contains_key(prefix));
                if let Some(target) = target {
                    if &target != module && !target.is_empty() {
                        targets.insert(target);
                    }
                }
            }
            edges.insert(module.clone(), targets);
        }
        Graph { edges }
    }

    /// Edges between the top-level folders (and top-level files) of `src/`.
    fn folders(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, targets) in &self.edges {
            let Some(from_top) = from.first() else {
                continue;
            };
            let entry = folders.entry(from_top.clone()).or_default();
            for target in targets {
                if let Some(to_top) = target.first() {
                    if to_top != from_top {
                        entry.insert(to_top.clone());
                    }
                }
            }
        }
        folders
    }
}

/// A circle in `edges`, if there is one, as the list of its nodes.
fn circle<T: Ord + Clone + std::fmt::Debug>(edges: &BTreeMap<T, BTreeSet<T>>) -> Option<Vec<T>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn walk<T: Ord + Clone>(
        node: &T,
        edges: &BTreeMap<T, BTreeSet<T>>,
        marks: &mut BTreeMap<T, Mark>,
        stack: &mut Vec<T>,
    ) -> Option<Vec<T>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = stack.iter().position(|other| other == node).unwrap_or(0);
                let mut found = stack[start..].to_vec();
                found.push(node.clone());
                return Some(found);
            }
            None => {}
        }
        marks.insert(node.clone(), Mark::Open);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = walk(next, edges, marks, stack) {
                return Some(found);
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in edges.keys() {
        let mut stack = Vec::new();
        if let Some(found) = walk(node, edges, &mut marks, &mut stack) {
            return Some(found);
        }
    }
    None
}

#[test]
fn no_circle_between_folders() {
    let graph = Graph::read();
    let mut folders = graph.folders();
    // The hidden properties of the fuzz targets drive the whole stack from above.
    folders.remove("fuzzing");
    for targets in folders.values_mut() {
        targets.remove("fuzzing");
    }
    assert_eq!(circle(&folders), None, "folders: {folders:#?}");
}

#[test]
fn no_circle_between_the_files_of_a_folder() {
    let graph = Graph::read();
    let mut inside: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (from, targets) in &graph.edges {
        let entry = inside.entry(from.clone()).or_default();
        for target in targets {
            // Only edges between two files of the same folder; a folder's `mod.rs`
            // re-exporting its files is the folder's face, not a circle.
            let same_folder = from.len() > 1
                && target.len() == from.len()
                && target[..target.len() - 1] == from[..from.len() - 1];
            if same_folder {
                entry.insert(target.clone());
            }
        }
    }
    assert_eq!(circle(&inside), None);
}

#[test]
fn forbidden_directions_never_appear() {
    let folders = Graph::read().folders();
    let mut found = Vec::new();
    for (from, to) in FORBIDDEN {
        if folders
            .get(*from)
            .is_some_and(|targets| targets.contains(*to))
        {
            found.push(format!("{from} -> {to}"));
        }
    }
    for leaf in LEAVES {
        if let Some(targets) = folders.get(*leaf) {
            for target in targets {
                found.push(format!("{leaf} -> {target} (a leaf)"));
            }
        }
    }
    for (from, allowed) in ONLY {
        for target in folders.get(*from).into_iter().flatten() {
            if !allowed.contains(&target.as_str()) {
                found.push(format!("{from} -> {target} (only {allowed:?})"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_circle_and_a_forbidden_direction() {
    // The checks above can fail: a made-up graph with a circle is caught.
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    edges.entry("a").or_default().insert("b");
    edges.entry("b").or_default().insert("c");
    edges.entry("c").or_default().insert("a");
    assert_eq!(circle(&edges), Some(vec!["a", "b", "c", "a"]));
    edges.entry("c").or_default().remove("a");
    assert_eq!(circle(&edges), None);
    // And the real graph has edges to check: the console uses the seat.
    let folders = Graph::read().folders();
    assert!(folders["console"].contains("seat"), "{folders:#?}");
}

/// The lines of a file before its test module.
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .position(|pair| pair[0].trim() == "#[cfg(test)]" && pair[1].starts_with("mod "))
        .unwrap_or(lines.len())
}

#[test]
fn no_file_over_700_lines_of_code() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).expect("read a source file");
            let lines = code_lines(&text);
            (lines > MAX_LINES).then(|| format!("{}: {lines}", file.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_module_map_names_every_folder() {
    let map =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/developing.md"))
            .expect("read docs/developing.md");
    let section = map
        .split("\n## Layout\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/developing.md has a ## Layout section");
    // Every `src/NAME/` or `src/NAME.rs` the map names (not `loadtest/src/...`).
    let named: BTreeSet<String> = section
        .match_indices("src/")
        .filter(|(at, _)| {
            section[..*at]
                .chars()
                .next_back()
                .is_none_or(|before| !before.is_alphanumeric() && before != '/')
        })
        .filter_map(|(at, _)| {
            let name: String = section[at + "src/".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect();
    let present: BTreeSet<String> = std::fs::read_dir(src())
        .expect("read src")
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            path.file_name()
                .map(|name| name.to_string_lossy().trim_end_matches(".rs").to_string())
                .unwrap_or_default()
        })
        .filter(|name| name != "lib")
        .collect();
    let missing: Vec<&String> = present.difference(&named).collect();
    let stale: Vec<&String> = named.difference(&present).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/developing.md's layout: missing {missing:?}, no longer there {stale:?}"
    );
}

/// The first ```rust block after `heading` in docs/developing.md, parsed.
fn snippet(heading: &str) -> syn::File {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/developing.md"))
            .expect("read docs/developing.md");
    let section = text
        .split(&format!("\n{heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/developing.md has {heading}"));
    let code = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("{heading} has a rust block"));
    // The block may be indented (inside a list item).
    let code: String = code
        .lines()
        .map(|line| line.strip_prefix("   ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    syn::parse_file(&code).unwrap_or_else(|error| panic!("{heading}'s example: {error}"))
}

/// The field names of the struct expression that `name`'s const is set to.
fn const_fields(file: &syn::File, name: &str) -> BTreeSet<String> {
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(item) if item.ident == name => match &*item.expr {
                syn::Expr::Struct(value) => Some(
                    value
                        .fields
                        .iter()
                        .filter_map(|field| match &field.member {
                            syn::Member::Named(name) => Some(name.to_string()),
                            syn::Member::Unnamed(_) => None,
                        })
                        .collect(),
                ),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| panic!("no const {name} set to a struct"))
}

/// A source file of the crate, parsed.
fn source(path: &str) -> syn::File {
    let text = std::fs::read_to_string(src().join(path)).expect("read a source file");
    syn::parse_file(&text).expect("parse a source file")
}

/// The named fields of struct `name` in `file`.
fn struct_fields(file: &syn::File, name: &str) -> BTreeSet<String> {
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Struct(item) if item.ident == name => Some(
                item.fields
                    .iter()
                    .filter_map(|field| Some(field.ident.as_ref()?.to_string()))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no struct {name}"))
}

#[test]
fn adding_a_game_names_every_field_of_a_row() {
    let example = const_fields(&snippet("## Adding a game"), "ROW");
    let real = struct_fields(&source("catalog/kind.rs"), "GameKind");
    assert_eq!(example, real, "docs/developing.md, \"Adding a game\"");
    // And every game's own row sets the same fields.
    for game in ["sokoban", "starpusher", "twenty48", "wumpus"] {
        let row = const_fields(&source(&format!("catalog/{game}.rs")), "ROW");
        assert_eq!(row, real, "{game}'s row");
    }
}

#[test]
fn adding_a_command_matches_the_table() {
    let example = snippet("## Adding a command");
    let table = source("console/commands/mod.rs");
    assert_eq!(
        const_fields(&example, "COMMAND"),
        struct_fields(&table, "CommandSpec"),
        "docs/developing.md, \"Adding a command\""
    );
    // What the example takes from the table's module is there.
    let offered: BTreeSet<String> = table
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(item) => Some(item.ident.to_string()),
            syn::Item::Enum(item) => Some(item.ident.to_string()),
            syn::Item::Const(item) => Some(item.ident.to_string()),
            _ => None,
        })
        .collect();
    assert!(offered.contains("COMMANDS"), "{offered:?}");
    let mut uses = Uses {
        module: &[
            "console".to_string(),
            "commands".to_string(),
            "hello".to_string(),
        ],
        paths: Vec::new(),
    };
    uses.visit_file(&example);
    let taken: Vec<String> = uses
        .paths
        .iter()
        .filter(|path| path.len() == 3 && path[..2] == ["console", "commands"])
        .map(|path| path[2].clone())
        .collect();
    assert!(!taken.is_empty());
    for name in taken {
        assert!(
            offered.contains(&name),
            "{name} is not in the table's module"
        );
    }
    // Every real command is a file with such a COMMAND, listed in the table.
    let listed =
        quote_free(&std::fs::read_to_string(src().join("console/commands/mod.rs")).unwrap());
    for entry in std::fs::read_dir(src().join("console/commands")).expect("read commands") {
        let path = entry.expect("directory entry").path();
        let name = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        if name == "mod" {
            continue;
        }
        let file = source(&format!("console/commands/{name}.rs"));
        assert_eq!(
            const_fields(&file, "COMMAND"),
            struct_fields(&table, "CommandSpec"),
            "{name}.rs"
        );
        assert!(
            listed.contains(&format!("{name}::COMMAND")),
            "{name} is not in COMMANDS"
        );
    }
}

/// The text without whitespace, for finding `name::COMMAND` in the table.
fn quote_free(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
