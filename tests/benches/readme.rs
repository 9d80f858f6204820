//! The bench file of README.md, compiled and run as a user's would be
//! (tests/tests/readme.rs keeps the two the same). It is included rather
//! than written here so that rustfmt keeps the README's layout.

include!("readme/hashing.rs");
