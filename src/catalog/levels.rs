//! The level store: every level, collection and world a game can load, by name.
//!
//! The repository's `levels/` tree is compiled into the binary, so a server runs with
//! nothing beside it; `--levels DIR` adds the files of a directory with the same
//! layout, a name found there replacing the built-in one (SPEC section 2). A bad file
//! never stops anything: it is skipped and reported as a [`Problem`] naming the file,
//! the line and the reason.
//!
//! A levels directory is the operator's, but its files are read as if hostile: only
//! regular files (a symlink is followed, and what it points to must be a regular
//! file), opened without blocking (a FIFO never hangs the server), at most
//! [`MAX_FILE_SIZE`] bytes (a huge or sparse file is refused before it is read). A
//! directory that is missing, or holds files but no level file where one is expected,
//! is an error ([`LayoutError`]), never a silent start with the built-in levels only.
//! A directory with no files at all yet (a class folder not filled yet, perhaps with
//! its empty `sokoban/` and `starpusher/`) is [`LayoutError::Unfilled`]: the server
//! serves the built-in levels and says so ([`Levels::unfilled`]), rather than refusing
//! to start and being restarted in a loop.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use include_dir::{include_dir, Dir};

use crate::games::sokoban;
use crate::games::starpusher::xsb::{self, Collection};
use crate::games::world::Level;
use crate::games::wumpus::{self, Cave};

static BUILT_IN: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/levels");

/// The largest level file read: far beyond any real collection (the largest public
/// ones are well under 1 MiB), small enough that reading one costs little.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// The folders a levels directory may hold, each with the extensions read there.
const LAYOUT: &[(&str, &[&str])] = &[
    (<Level as LevelFile>::DIR, Level::EXTENSIONS),
    (<Collection as LevelFile>::DIR, Collection::EXTENSIONS),
    (<Cave as LevelFile>::DIR, Cave::EXTENSIONS),
];

/// Why a levels directory cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Nothing is there.
    #[error("{dir}: no such directory: name a folder laid out like levels/ (sokoban/, starpusher/, wumpus/)")]
    Missing {
        /// The directory as given.
        dir: String,
    },
    /// A file, not a folder.
    #[error("{dir}: not a directory: name a folder laid out like levels/ (sokoban/, starpusher/, wumpus/)")]
    NotADirectory {
        /// The directory as given.
        dir: String,
    },
    /// A folder with no files at all yet (only folders, or files whose names start
    /// with a dot, such as `.gitkeep`).
    #[error("{dir}: the folder is empty: put sokoban/NAME.txt, starpusher/NAME.txt (or .xsb, .sok) or wumpus/NAME.txt inside it")]
    Unfilled {
        /// The directory as given.
        dir: String,
    },
    /// A folder with files, but not a single level file where they belong.
    #[error("{dir}: no level files found: expected sokoban/NAME.txt, starpusher/NAME.txt (or .xsb, .sok) or wumpus/NAME.txt inside it{hint}")]
    Empty {
        /// The directory as given.
        dir: String,
        /// What was found instead, if anything looks like a mistake.
        hint: String,
    },
}

/// Something wrong with a level file: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, as the user named it (a path, or `built-in:KIND/NAME.txt`).
    pub file: String,
    /// The 1-based line the problem is on.
    pub line: usize,
    /// For a collection, the 1-based number of the level in the file.
    pub level: Option<usize>,
    /// What is wrong, and what to do about it.
    pub reason: String,
}

impl Problem {
    /// A problem with a whole file.
    pub fn new(file: &str, line: usize, reason: impl fmt::Display) -> Problem {
        Problem {
            file: file.to_string(),
            line,
            level: None,
            reason: reason.to_string(),
        }
    }

    /// A problem with one level of a collection.
    pub fn in_level(file: &str, level: usize, line: usize, reason: impl fmt::Display) -> Problem {
        Problem {
            level: Some(level),
            ..Problem::new(file, line, reason)
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Some(level) => write!(
                f,
                "Level {level} (line {}) in {}: {}",
                self.line, self.file, self.reason
            ),
            // Line 0: the file as a whole (it cannot be read, or is not a file).
            None if self.line == 0 => write!(f, "{}: {}", self.file, self.reason),
            None => write!(f, "{}: line {}: {}", self.file, self.line, self.reason),
        }
    }
}

/// What parsing one file gave: the value, if any of it was usable, and every problem.
#[derive(Debug)]
pub struct Parsed<T> {
    /// The loaded value; `None` when nothing in the file could be used.
    pub value: Option<T>,
    /// Everything that was skipped, and why.
    pub problems: Vec<Problem>,
}

impl<T> Parsed<T> {
    /// A file that was read whole or not at all.
    pub fn from_result(result: Result<T, Vec<Problem>>) -> Parsed<T> {
        match result {
            Ok(value) => Parsed {
                value: Some(value),
                problems: Vec::new(),
            },
            Err(problems) => Parsed {
                value: None,
                problems,
            },
        }
    }
}

/// A kind of file in the level tree.
pub trait LevelFile: Sized + Send + Sync + 'static {
    /// The folder under `levels/` that holds this kind.
    const DIR: &'static str;

    /// The file extensions of this kind; anything else in its folder (notes,
    /// solutions) is left alone.
    const EXTENSIONS: &'static [&'static str] = &["txt"];

    /// Parse one file. `file` is its name for messages.
    fn parse(file: &str, text: &str) -> Result<Self, Vec<Problem>>;

    /// Parse one file that may load in part (a collection with some bad levels). The
    /// default takes the file whole or not at all.
    fn parse_partial(file: &str, text: &str) -> Parsed<Self> {
        Parsed::from_result(Self::parse(file, text))
    }
}

impl LevelFile for Level {
    const DIR: &'static str = "sokoban";

    fn parse(file: &str, text: &str) -> Result<Self, Vec<Problem>> {
        sokoban::parse_level(text).map_err(|error| vec![Problem::new(file, error.line(), error)])
    }
}

impl LevelFile for Collection {
    const DIR: &'static str = "starpusher";
    /// Collections from the wild are usually `.xsb` (or `.sok`); taking them as they are
    /// saves renaming every downloaded file.
    const EXTENSIONS: &'static [&'static str] = &["txt", "xsb", "sok"];

    fn parse(file: &str, text: &str) -> Result<Self, Vec<Problem>> {
        let parsed = Self::parse_partial(file, text);
        match parsed.value {
            Some(collection) if parsed.problems.is_empty() => Ok(collection),
            _ => Err(parsed.problems),
        }
    }

    fn parse_partial(file: &str, text: &str) -> Parsed<Self> {
        let reading = xsb::parse_collection(text);
        let mut problems: Vec<Problem> = reading
            .skipped
            .iter()
            .map(|bad| Problem::in_level(file, bad.number, bad.line, &bad.error))
            .collect();
        let value = if reading.collection.levels.is_empty() {
            if problems.is_empty() {
                problems.push(Problem::new(
                    file,
                    1,
                    "no levels found: a collection needs boards of # rows separated by blank lines",
                ));
            }
            None
        } else {
            Some(reading.collection)
        };
        Parsed { value, problems }
    }
}

impl LevelFile for Cave {
    const DIR: &'static str = "wumpus";

    fn parse(file: &str, text: &str) -> Result<Self, Vec<Problem>> {
        wumpus::parse_cave(text).map_err(|error| vec![Problem::new(file, error.line, error.reason)])
    }
}

/// The loaded files of one kind, by lower-case name. Shared: a copy (a context with
/// a player's own saves, made at every game start) is one reference count.
#[derive(Debug)]
pub struct Catalog<T> {
    entries: Arc<BTreeMap<String, Arc<T>>>,
}

/// A copy shares the loaded files.
impl<T> Clone for Catalog<T> {
    fn clone(&self) -> Self {
        Catalog {
            entries: Arc::clone(&self.entries),
        }
    }
}

impl<T> Default for Catalog<T> {
    fn default() -> Self {
        Catalog {
            entries: Arc::new(BTreeMap::new()),
        }
    }
}

impl<T: LevelFile> Catalog<T> {
    /// The entry called `name` (any case).
    pub fn get(&self, name: &str) -> Option<Arc<T>> {
        self.entries.get(&name.to_ascii_lowercase()).cloned()
    }

    /// Every name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The first name in sort order, if any.
    pub fn first(&self) -> Option<(&str, Arc<T>)> {
        self.entries
            .iter()
            .next()
            .map(|(name, value)| (name.as_str(), Arc::clone(value)))
    }

    fn add(&mut self, name: String, parsed: Parsed<T>, problems: &mut Vec<Problem>) {
        problems.extend(parsed.problems);
        if let Some(value) = parsed.value {
            // Only while loading, before any copy exists: no copy is made.
            Arc::make_mut(&mut self.entries).insert(name, Arc::new(value));
        }
    }
}

/// Parse the bytes of one file labelled `label`; bytes that are not UTF-8 are a
/// problem on the line where they start.
fn parse_bytes<T: LevelFile>(label: &str, bytes: &[u8]) -> Parsed<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => T::parse_partial(label, text),
        Err(error) => {
            let line = 1 + bytes[..error.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Parsed::from_result(Err(vec![Problem::new(
                label,
                line,
                "the file is not valid UTF-8: save it as UTF-8 text",
            )]))
        }
    }
}

/// Read and parse one level file of kind `T`: the way `--levels` reads each file, and
/// what `arcade play GAME FILE` uses for a file named on the command line.
pub fn read_file<T: LevelFile>(path: &Path) -> Parsed<T> {
    let label = path.display().to_string();
    match read_bounded(path) {
        Ok(bytes) => parse_bytes(&label, &bytes),
        Err(reason) => Parsed::from_result(Err(vec![Problem::new(&label, 0, reason)])),
    }
}

/// The bytes of the regular file at `path`, at most [`MAX_FILE_SIZE`] of them.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Opening a FIFO for reading waits for a writer; without blocking it does not.
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|error| format!("cannot open it: {error}"))?;
    // The metadata of what was opened, so that nothing can be swapped in between.
    let metadata = file
        .metadata()
        .map_err(|error| format!("cannot read it: {error}"))?;
    if !metadata.is_file() {
        return Err(String::from(
            "not a regular file (a directory, FIFO or device): only plain files are read",
        ));
    }
    let too_big = |size: u64| {
        format!(
            "too big ({size} bytes): a level file may be at most {} MiB",
            MAX_FILE_SIZE / (1024 * 1024)
        )
    };
    if metadata.len() > MAX_FILE_SIZE {
        return Err(too_big(metadata.len()));
    }
    let mut bytes = Vec::new();
    // The file may grow after it was measured: never read past the cap.
    file.take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read it: {error}"))?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Check that `dir` can serve as a levels directory: it exists, and holds at least one
/// file where a game looks for levels.
///
/// # Errors
/// [`LayoutError`] saying what is wrong and what was expected.
pub fn check_layout(dir: &Path) -> Result<(), LayoutError> {
    let name = dir.display().to_string();
    match std::fs::metadata(dir) {
        Err(_) => return Err(LayoutError::Missing { dir: name }),
        Ok(metadata) if !metadata.is_dir() => return Err(LayoutError::NotADirectory { dir: name }),
        Ok(_) => {}
    }
    let found = LAYOUT
        .iter()
        .any(|(folder, extensions)| !level_files(&dir.join(folder), extensions).is_empty());
    if found {
        return Ok(());
    }
    if !holds_a_file(dir, 0, &mut 0) {
        return Err(LayoutError::Unfilled { dir: name });
    }
    // Say what is there instead, for the usual mistakes.
    let mut hints = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for path in entries {
            let Some(file_name) = path.file_name().and_then(|name| name.to_str()) else {
                continue;
            };
            if path.is_dir() {
                let expected = LAYOUT
                    .iter()
                    .find(|(folder, _)| folder.eq_ignore_ascii_case(file_name));
                if let Some((folder, _)) = expected.filter(|(folder, _)| *folder != file_name) {
                    hints.push(format!("{file_name}/ should be called {folder}/"));
                }
            } else if level_name(&path, &["txt", "xsb", "sok"]).is_some() {
                hints.push(format!("{file_name} must go into one of the folders"));
            }
            if hints.len() == 3 {
                break;
            }
        }
    }
    let hint = if hints.is_empty() {
        String::new()
    } else {
        format!(" ({})", hints.join("; "))
    };
    Err(LayoutError::Empty { dir: name, hint })
}

/// How deep [`holds_a_file`] looks, and how many entries it reads at most: a folder
/// deeper or bigger than that is taken as holding something.
const SEARCH_DEPTH: usize = 4;
const SEARCH_ENTRIES: usize = 10_000;

/// Whether `folder` or a folder in it holds a file other than a hidden one (a name
/// starting with a dot: `.gitkeep`, `.DS_Store`). What cannot be read counts as a
/// file: only a folder seen to be empty is empty.
fn holds_a_file(folder: &Path, depth: usize, seen: &mut usize) -> bool {
    if depth > SEARCH_DEPTH {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(folder) else {
        return true;
    };
    for entry in entries {
        *seen += 1;
        if *seen > SEARCH_ENTRIES {
            return true;
        }
        let Ok(entry) = entry else {
            return true;
        };
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        let holds = match entry.file_type() {
            Ok(kind) if kind.is_dir() => !hidden && holds_a_file(&entry.path(), depth + 1, seen),
            Ok(_) => !hidden,
            Err(_) => true,
        };
        if holds {
            return true;
        }
    }
    false
}

/// The files of `folder` with one of `extensions`, sorted.
fn level_files(folder: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| level_name(path, extensions).is_some())
        .collect();
    paths.sort();
    paths
}

/// Every level the server can load: one catalog per kind of level file (a game that
/// loads no files has none). A copy shares the loaded files.
#[derive(Debug, Default, Clone)]
pub struct Levels {
    /// `sokoban` levels, one per file.
    pub sokoban: Catalog<Level>,
    /// `starpusher` collections, many levels per file.
    pub starpusher: Catalog<Collection>,
    /// `wumpus` worlds, one per file.
    pub wumpus: Catalog<Cave>,
    /// Where the levels came from, for the log at start.
    pub sources: Vec<Source>,
    /// The `--levels` folder, when it was empty as these were loaded: the built-in
    /// levels are served instead (the log, `reload` and `/healthz` say so).
    pub unfilled: Option<PathBuf>,
}

/// How many files of one kind were loaded from one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The kind's folder (`sokoban`, `starpusher`, `wumpus`).
    pub kind: &'static str,
    /// `built-in`, or the folder read.
    pub from: String,
    /// Files loaded (all or in part).
    pub files: usize,
    /// Files skipped whole.
    pub skipped: usize,
}

impl Levels {
    /// The built-in levels, then those of `extra` (which replace built-ins of the same
    /// name). Returns the store and every problem met; problems never stop loading.
    pub fn load(extra: Option<&Path>) -> (Levels, Vec<Problem>) {
        let mut levels = Levels::default();
        let mut problems = Vec::new();
        levels.add_built_in(&mut problems);
        if let Some(dir) = extra {
            levels.add_dir(dir, &mut problems);
        }
        (levels, problems)
    }

    /// Only the built-in levels.
    pub fn built_in() -> (Levels, Vec<Problem>) {
        Levels::load(None)
    }

    /// [`Levels::load`] for a server: `extra` is checked first ([`check_layout`]),
    /// and a folder with nothing in it yet gives the built-in levels, marked
    /// [`Levels::unfilled`]. It reads the disk: call it on a blocking thread.
    ///
    /// # Errors
    /// Any other [`LayoutError`]: a missing folder, a file, files that are not levels.
    pub fn load_checked(extra: Option<&Path>) -> Result<(Levels, Vec<Problem>), LayoutError> {
        let Some(dir) = extra else {
            return Ok(Levels::built_in());
        };
        match check_layout(dir) {
            Ok(()) => Ok(Levels::load(Some(dir))),
            Err(LayoutError::Unfilled { .. }) => {
                let (mut levels, problems) = Levels::built_in();
                levels.unfilled = Some(dir.to_path_buf());
                Ok((levels, problems))
            }
            Err(error) => Err(error),
        }
    }

    /// Check every level file under `dir` (the same layout as `levels/`).
    ///
    /// # Errors
    /// The directory cannot serve as a levels directory at all ([`check_layout`]).
    pub fn check_dir(dir: &Path) -> Result<Vec<Problem>, LayoutError> {
        check_layout(dir)?;
        let mut problems = Vec::new();
        Levels::default().add_dir(dir, &mut problems);
        Ok(problems)
    }

    fn add_built_in(&mut self, problems: &mut Vec<Problem>) {
        self.add_kind_built_in::<Level>(|levels| &mut levels.sokoban, problems);
        self.add_kind_built_in::<Collection>(|levels| &mut levels.starpusher, problems);
        self.add_kind_built_in::<Cave>(|levels| &mut levels.wumpus, problems);
    }

    fn add_dir(&mut self, dir: &Path, problems: &mut Vec<Problem>) {
        self.add_kind_dir::<Level>(dir, |levels| &mut levels.sokoban, problems);
        self.add_kind_dir::<Collection>(dir, |levels| &mut levels.starpusher, problems);
        self.add_kind_dir::<Cave>(dir, |levels| &mut levels.wumpus, problems);
    }

    fn add_kind_built_in<T: LevelFile>(
        &mut self,
        catalog: fn(&mut Levels) -> &mut Catalog<T>,
        problems: &mut Vec<Problem>,
    ) {
        let Some(folder) = BUILT_IN.get_dir(T::DIR) else {
            return;
        };
        let mut source = Source::new(T::DIR, String::from("built-in"));
        for file in folder.files() {
            if let Some(name) = level_name(file.path(), T::EXTENSIONS) {
                let label = format!("built-in:{}", file.path().display());
                let parsed = parse_bytes(&label, file.contents());
                source.count(&parsed);
                catalog(self).add(name, parsed, problems);
            }
        }
        self.sources.push(source);
    }

    fn add_kind_dir<T: LevelFile>(
        &mut self,
        dir: &Path,
        catalog: fn(&mut Levels) -> &mut Catalog<T>,
        problems: &mut Vec<Problem>,
    ) {
        let folder = dir.join(T::DIR);
        let paths = level_files(&folder, T::EXTENSIONS);
        if paths.is_empty() {
            return;
        }
        let mut source = Source::new(T::DIR, folder.display().to_string());
        for path in paths {
            let Some(name) = level_name(&path, T::EXTENSIONS) else {
                continue;
            };
            let parsed = read_file(&path);
            source.count(&parsed);
            catalog(self).add(name, parsed, problems);
        }
        self.sources.push(source);
    }
}

impl Source {
    fn new(kind: &'static str, from: String) -> Source {
        Source {
            kind,
            from,
            files: 0,
            skipped: 0,
        }
    }

    fn count<T>(&mut self, parsed: &Parsed<T>) {
        if parsed.value.is_some() {
            self.files += 1;
        } else {
            self.skipped += 1;
        }
    }
}

/// The catalog name of a level file: its lower-case stem, for files with one of the
/// kind's extensions only.
pub(crate) fn level_name(path: &Path, extensions: &[&str]) -> Option<String> {
    let extension = path.extension()?.to_str()?;
    if !extensions
        .iter()
        .any(|known| known.eq_ignore_ascii_case(extension))
    {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    Some(stem.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_levels_load_without_problems() {
        let (levels, problems) = Levels::built_in();
        assert_eq!(problems, Vec::new());
        assert!(levels.sokoban.get("classic").is_some());
        assert!(levels.sokoban.get("CLASSIC").is_some());
        for world in ["classic", "maze", "big"] {
            assert!(levels.wumpus.get(world).is_some(), "{world}");
        }
    }

    #[test]
    fn a_directory_adds_replaces_and_reports() {
        let dir = tempfile::tempdir().unwrap();
        let sokoban = dir.path().join("sokoban");
        std::fs::create_dir(&sokoban).unwrap();
        std::fs::write(sokoban.join("classic.txt"), "#####\n#P+-#\n#####\n").unwrap();
        std::fs::write(sokoban.join("tiny.txt"), "#P+-#\n").unwrap();
        std::fs::write(sokoban.join("bad.txt"), "####\n#P+-x#\n").unwrap();
        std::fs::write(sokoban.join("binary.txt"), b"#P+-#\n\xff\n").unwrap();
        std::fs::write(sokoban.join("notes.md"), "not a level").unwrap();
        let (levels, problems) = Levels::load(Some(dir.path()));
        assert_eq!(levels.sokoban.get("classic").unwrap().width(), 5);
        assert!(levels.sokoban.get("tiny").is_some());
        assert!(levels.sokoban.get("bad").is_none());
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0]
                .ends_with("bad.txt: line 2: unknown character 'x' at column 5: use # . P + - O"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("binary.txt: line 2: the file is not valid UTF-8"),
            "{messages:?}"
        );
        assert_eq!(Levels::check_dir(dir.path()).unwrap().len(), 2);
    }

    #[test]
    fn collections_load_in_part_from_txt_and_xsb_files() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("starpusher");
        std::fs::create_dir(&folder).unwrap();
        let two = "#####\n#@$.#\n#####\n\n#####\n# $.#\n#####\n";
        std::fs::write(folder.join("Mixed.xsb"), two).unwrap();
        std::fs::write(folder.join("bad.txt"), "#####\n# $.#\n#####\n").unwrap();
        std::fs::write(folder.join("arcade.solutions"), "1 R\n").unwrap();
        let (levels, problems) = Levels::load(Some(dir.path()));
        assert_eq!(levels.starpusher.get("mixed").unwrap().levels.len(), 1);
        assert!(levels.starpusher.get("bad").is_none());
        assert!(
            levels.starpusher.get("arcade").is_some(),
            "the built-in stays"
        );
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[1].starts_with("Level 1 (line 1) in ")
                && messages[1]
                    .ends_with("bad.txt: no player: mark the start with the player glyph"),
            "{messages:?}"
        );
        assert!(
            messages[0].starts_with("Level 2 (line 5) in ")
                && messages[0].contains("Mixed.xsb: no player"),
            "{messages:?}"
        );
    }

    #[test]
    fn collection_problems_name_the_level() {
        let problem = Problem::in_level("x.txt", 3, 17, "no player");
        assert_eq!(problem.to_string(), "Level 3 (line 17) in x.txt: no player");
    }

    #[test]
    fn collection_problems_use_the_spec_format_and_bad_files_load_nothing() {
        let text = "#####\n#@$.#\n#####\n\n#####\n# $.#\n#####\n";
        let parsed = Collection::parse_partial("x.txt", text);
        assert_eq!(parsed.value.map(|c| c.levels.len()), Some(1));
        let messages: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            ["Level 2 (line 5) in x.txt: no player: mark the start with the player glyph"]
        );
        assert!(Collection::parse("x.txt", text).is_err());

        let parsed = Collection::parse_partial("bad.txt", "#####\n# $.#\n#####\n");
        assert!(parsed.value.is_none());
        assert_eq!(parsed.problems.len(), 1);

        let parsed = Collection::parse_partial("empty.txt", "; nothing here\nTitle: x\n");
        assert!(parsed.value.is_none());
        assert_eq!(
            parsed.problems[0].to_string(),
            "empty.txt: line 1: no levels found: a collection needs boards of # rows separated by blank lines"
        );
    }

    #[test]
    fn public_collections_load_whole() {
        for (name, count) in [("starPusherLevels.txt", 201), ("microban_155.xsb", 155)] {
            let Some(text) = crate::games::testing::shared_levels(name) else {
                return;
            };
            let parsed = Collection::parse_partial(name, &text);
            assert_eq!(parsed.problems, Vec::new(), "{name}");
            let collection = parsed.value.unwrap();
            assert_eq!(collection.levels.len(), count, "{name}");
        }
    }

    #[test]
    fn a_bad_world_is_a_problem_for_the_catalog() {
        let problems = Cave::parse("built-in:wumpus/x.txt", "dim 4 4\nfoo\n").unwrap_err();
        assert_eq!(
            problems[0].to_string(),
            "built-in:wumpus/x.txt: line 2: unknown keyword at column 1: use one of dim, player, wumpus, gold, pit, exit, blocked"
        );
    }

    #[cfg(unix)]
    #[test]
    fn hostile_files_are_refused_without_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("sokoban");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("good.txt"), "#P+-#\n").unwrap();
        std::os::unix::fs::symlink("/dev/zero", folder.join("zero.txt")).unwrap();
        let fifo = folder.join("fifo.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");
        // Sparse: 2 GB on paper, nothing on disk.
        let huge = std::fs::File::create(folder.join("huge.txt")).unwrap();
        huge.set_len(2_000_000_000).unwrap();
        std::fs::create_dir(folder.join("folder.txt")).unwrap();
        let (levels, problems) = Levels::load(Some(dir.path()));
        assert!(levels.sokoban.get("good").is_some());
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        let about = |file: &str| {
            messages
                .iter()
                .find(|message| message.contains(file))
                .cloned()
                .unwrap_or_default()
        };
        assert!(
            about("zero.txt").ends_with(
                ": not a regular file (a directory, FIFO or device): only plain files are read"
            ),
            "{messages:?}"
        );
        assert!(
            about("fifo.txt").contains("not a regular file"),
            "{messages:?}"
        );
        assert!(
            about("folder.txt").contains("not a regular file"),
            "{messages:?}"
        );
        assert!(
            about("huge.txt")
                .ends_with(": too big (2000000000 bytes): a level file may be at most 16 MiB"),
            "{messages:?}"
        );
        let source = levels
            .sources
            .iter()
            .find(|source| source.kind == "sokoban" && source.from != "built-in")
            .unwrap();
        assert_eq!((source.files, source.skipped), (1, 4));
    }

    #[test]
    fn an_empty_directory_gives_the_built_in_levels_marked() {
        let dir = tempfile::tempdir().unwrap();
        let name = dir.path().display().to_string();
        // Nothing; then empty folders and hidden files: still nothing.
        for step in 0..2 {
            if step == 1 {
                std::fs::create_dir_all(dir.path().join("sokoban/later")).unwrap();
                std::fs::create_dir(dir.path().join("wumpus")).unwrap();
                std::fs::write(dir.path().join("sokoban/.gitkeep"), "").unwrap();
                std::fs::write(dir.path().join(".DS_Store"), "x").unwrap();
            }
            assert_eq!(
                check_layout(dir.path()),
                Err(LayoutError::Unfilled { dir: name.clone() })
            );
            let (levels, problems) = Levels::load_checked(Some(dir.path())).unwrap();
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(levels.unfilled.as_deref(), Some(dir.path()));
            assert!(levels.sokoban.get("classic").is_some());
        }
        assert_eq!(
            check_layout(dir.path()).unwrap_err().to_string(),
            format!("{name}: the folder is empty: put sokoban/NAME.txt, starpusher/NAME.txt (or .xsb, .sok) or wumpus/NAME.txt inside it")
        );
        // Filled: the folder's levels, no mark.
        std::fs::write(dir.path().join("sokoban/a.txt"), "#####\n#P+-#\n#####\n").unwrap();
        let (levels, _) = Levels::load_checked(Some(dir.path())).unwrap();
        assert_eq!(levels.unfilled, None);
        assert!(levels.sokoban.get("a").is_some());
        // Missing stays an error; no folder at all is the built-in levels, unmarked.
        assert!(matches!(
            Levels::load_checked(Some(&dir.path().join("nowhere"))),
            Err(LayoutError::Missing { .. })
        ));
        assert_eq!(Levels::load_checked(None).unwrap().0.unfilled, None);
    }

    #[test]
    fn a_directory_without_level_files_is_an_error_that_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let name = dir.path().display().to_string();
        assert!(matches!(
            check_layout(&dir.path().join("nowhere")),
            Err(LayoutError::Missing { .. })
        ));
        std::fs::write(dir.path().join("notes.md"), "levels come on Monday").unwrap();
        let error = check_layout(dir.path()).unwrap_err().to_string();
        assert_eq!(error, format!("{name}: no level files found: expected sokoban/NAME.txt, starpusher/NAME.txt (or .xsb, .sok) or wumpus/NAME.txt inside it"));
        std::fs::create_dir(dir.path().join("Sokoban")).unwrap();
        std::fs::write(dir.path().join("Sokoban/a.txt"), "#P+-#\n").unwrap();
        std::fs::write(dir.path().join("loose.xsb"), "#@$.#\n").unwrap();
        let error = check_layout(dir.path()).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "(Sokoban/ should be called sokoban/; loose.xsb must go into one of the folders)"
            ),
            "{error}"
        );
        std::fs::create_dir(dir.path().join("wumpus")).unwrap();
        std::fs::write(dir.path().join("wumpus/w.txt"), "not even a world").unwrap();
        assert_eq!(check_layout(dir.path()), Ok(()));
        let file = dir.path().join("wumpus/w.txt");
        assert!(matches!(
            check_layout(&file),
            Err(LayoutError::NotADirectory { .. })
        ));
    }
}
