// A group on a module in a file of its own: it cannot see into the file.
#[perfbench::group(sample_count = 10)]
#[path = "group_module/members.rs"]
mod members;

fn main() {}
