//! `cargo +nightly fuzz run event_spec`: any UTF-8 text given to the event
//! spec parser must come back as events or a one-line `SpecError`, never a
//! panic. Runs against a fake Intel hybrid sysfs tree (made once, in a
//! temporary directory) and the live `/sys/bus/event_source/devices`.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use perfbench::counter::event;

fn fake_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("perfbench-fuzz-{}", std::process::id()));
        let files: &[(&str, &str)] = &[
            ("cpu_core/type", "4"),
            ("cpu_core/cpus", "0-7,16"),
            ("cpu_core/format/event", "config:0-7"),
            ("cpu_core/format/umask", "config:8-15"),
            ("cpu_core/format/cmask", "config:24-31"),
            ("cpu_core/format/ldlat", "config1:0-15"),
            ("cpu_core/events/instructions", "event=0xc0"),
            ("cpu_core/events/mem-stores", "event=0xcd,umask=0x2,ldlat=?"),
            ("cpu_atom/type", "10"),
            ("cpu_atom/cpus", "8-15"),
            ("cpu_atom/format/event", "config:0-7,32-35"),
            ("msr/type", "9"),
            ("msr/format/event", "config:0-63"),
            ("msr/events/tsc", "event=0x00"),
            ("power/type", "23"),
            ("power/format/event", "config:0-7"),
            ("power/events/energy-pkg", "event=0x02"),
            ("power/events/energy-pkg.scale", "2.3283064365386962890625e-10"),
            ("power/events/energy-pkg.unit", "Joules"),
        ];
        for (rel, content) in files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        root
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(spec) = std::str::from_utf8(data) {
        for root in [fake_root(), Path::new("/sys/bus/event_source/devices")] {
            if let Err(e) = event::parse_list_in(spec, root) {
                assert!(!e.to_string().contains('\n'), "{spec:?}: {e}");
            }
        }
    }
});
