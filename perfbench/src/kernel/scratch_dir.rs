//! A folder of the tests' own under the system's temporary folder: every
//! test that writes files (fake sysfs trees, stores, reports) takes one, so
//! that tests running at once never share a path and none leaves a trace.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty folder named after a tag, the process and a counter;
/// removed with everything in it on drop.
pub(crate) struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Makes the folder `perfbench-TAG-PID-N`, emptied if a crashed run
    /// left one of that name.
    pub(crate) fn new(tag: &str) -> ScratchDir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "perfbench-{tag}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        ScratchDir(dir)
    }

    /// The folder: the root of what a test writes into it.
    pub(crate) fn root(&self) -> &Path {
        &self.0
    }

    /// Writes `content` to `rel` under the folder (e.g.
    /// `cpu/format/event`), making the folders on the way.
    pub(crate) fn file(&self, rel: &str, content: &str) -> &ScratchDir {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
        self
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
