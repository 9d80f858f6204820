// An unknown key on a group: the error suggests the nearest.
#[perfbench::group(measurment_time = 2)]
mod encoding {
    #[perfbench::perfbench]
    fn f() -> u64 {
        1
    }
}

fn main() {}
