//! All JSON perfbench writes and reads: the lines of `--output-format
//! json`, stored result files and their schema tags (`result_file.rs`).

mod result_file;

pub use result_file::*;
