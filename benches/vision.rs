//! Vision benchmarks (criterion): reading a 1280x1024 monitor capture of the web game once the
//! grid is known (targets: <= 5 ms), and finding the grid from scratch (<= 50 ms), with a given
//! profile and with `--profile auto`. Frames come from the in-repo corpus, `tests/data/corpus/`.
use bot2048::vision::io::load_image;
use bot2048::vision::{Profile, ProfileChoice, Reader};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;

fn frame(name: &str) -> image::RgbaImage {
    load_image(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/corpus")
            .join(name)
            .as_path(),
    )
    .expect("corpus frame")
}

fn bench(c: &mut Criterion) {
    let monitor = frame("web-2048/web-2048-07-monitor-seeded-near-end-right-game-over-overlay.png");
    let window = frame("gnome-2048/gnome-2048-02-played-120-moves.png");
    let web = Profile::load("web-2048").expect("built-in profile");
    let gnome = Profile::load("gnome-2048").expect("built-in profile");

    let mut tracked = Reader::new(ProfileChoice::Given(web.clone()));
    tracked.read(&monitor).expect("first read finds the grid");
    c.bench_function("read 1280x1024, grid known (web-2048)", |b| {
        b.iter(|| black_box(tracked.read(black_box(&monitor)).expect("read")))
    });
    let mut fresh = Reader::new(ProfileChoice::Given(web));
    c.bench_function("find grid + read 1280x1024 (web-2048)", |b| {
        b.iter(|| {
            fresh.forget_grid();
            black_box(fresh.read(black_box(&monitor)).expect("read"))
        })
    });
    let mut auto = Reader::new(ProfileChoice::Auto);
    c.bench_function("find grid + read 1280x1024 (auto)", |b| {
        b.iter(|| {
            auto.forget_grid();
            black_box(auto.read(black_box(&monitor)).expect("read"))
        })
    });
    let mut g = Reader::new(ProfileChoice::Given(gnome));
    c.bench_function("find grid + read 610x656 window (gnome-2048)", |b| {
        b.iter(|| {
            g.forget_grid();
            black_box(g.read(black_box(&window)).expect("read"))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
