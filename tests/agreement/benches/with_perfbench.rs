//! The agreement routines under perfbench, written as a user would (ids
//! `agreement::NAME`, NAME as under Criterion).

perfbench::main!();

mod agreement {
    use perfbench::{black_box, perfbench, Bencher};
    use perfbench_agreement as routines;
    use perfbench_agreement::Inputs;

    #[perfbench]
    fn base64_encode_50(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::base64_encode_50(black_box(&inputs.bytes_50)));
    }

    #[perfbench]
    fn base64_encode_50_inlined(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::base64_encode_50_inlined(black_box(&inputs.bytes_50)));
    }

    #[perfbench]
    fn base64_decode_68(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::base64_decode_68(black_box(&inputs.chars_68)));
    }

    #[perfbench]
    fn siphash_50(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::siphash_50(black_box(&inputs.bytes_50)));
    }

    #[perfbench]
    fn parse_csv_50(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::parse_csv_50(black_box(&inputs.csv_50)));
    }

    #[perfbench]
    fn base64_encode_4096(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::base64_encode_4096(black_box(&inputs.bytes_4096)));
    }

    #[perfbench]
    fn empty(b: &mut Bencher) {
        b.iter(|| routines::empty(black_box(&0)));
    }

    #[perfbench]
    fn alloc_free_68(b: &mut Bencher) {
        b.iter(|| routines::alloc_free_68(black_box(7)));
    }

    #[perfbench]
    fn sum_1000(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::sum_1000(black_box(&inputs.numbers)));
    }

    #[perfbench]
    fn mul_chain(b: &mut Bencher) {
        b.iter(|| routines::mul_chain(black_box(3)));
    }

    #[perfbench]
    fn stride_4mib(b: &mut Bencher) {
        let inputs = Inputs::default();
        b.iter(|| routines::stride_4mib(black_box(&inputs.buffer)));
    }
}
