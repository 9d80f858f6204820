//! A sampling profile of a benchmark's own code: the stacks sampled while
//! its routine ran, unwound from each sample's user registers and stack
//! with the binary's `.eh_frame`, symbolized from its symbol table, cut to
//! start at the routine, and counted ([`Profile`]).
//!
//! [`StackResolver`] (`stack_resolver.rs`) is the way in: made once per
//! process, it turns a [`ThreadSample`](crate::kernel::sampling::ThreadSample)
//! into the stack a [`Profile`] counts. Beneath it: the process's
//! executable mappings (`maps.rs`) and their ELF files (`module.rs`: the
//! executable through `/proc/self/exe`, its libraries, the vDSO read from
//! memory), the unwinder (`unwind.rs`: framehop on `.eh_frame`), the
//! symbolizer (`symbolizer.rs`: `.symtab`/`.dynsym` in
//! `symbol_table.rs`, inlined frames and lines from DWARF in
//! `dwarf_frames.rs`), names demangled and fit for the folded format
//! (`frame_name.rs`), and the cut at the routine (`routine_cut.rs`).
//!
//! A default release build (`cargo bench`: no frame pointers, no debug
//! information) gives each frame's function from the symbol table.
//! `[profile.bench] debug = "limited"` adds the inlined frames and their
//! source lines (`"line-tables-only"` adds the lines alone: its DWARF
//! names inlined functions without their paths).

mod dwarf_frames;
mod frame_name;
mod maps;
mod module;
mod profile_error;
mod routine_cut;
mod stack_resolver;
mod stacks;
mod symbol_table;
mod symbolizer;
mod unwind;

#[cfg(test)]
mod tests;

pub use frame_name::{
    demangled, folded_frame, frame_of_symbol, CONTROL_STANDIN, CUT_MARK, SEMICOLON_STANDIN,
    UNKNOWN_FRAME,
};
pub use profile_error::ProfileError;
pub use routine_cut::{is_measuring_code, routine_stack};
pub use stack_resolver::StackResolver;
#[cfg(test)]
pub(crate) use stacks::folded_profile;
pub use stacks::{
    frame_refused, Profile, DEEPER, MAX_DEPTH, MAX_EVENTS, MAX_FRAME_CHARS, MAX_STACKS,
};
pub use symbolizer::Frame;
