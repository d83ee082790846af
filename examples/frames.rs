//! Frames after a key on a live game, for timing its animation: presses each key given, captures
//! the window back to back for a while, and prints, per frame, the time since the key (ms) and
//! what the reader reads; optionally saves every frame as a PNG.
//!
//! ```text
//! DISPLAY=:95 cargo run --release --example frames -- 2048 web-2048 OUT_DIR down,left,down,right 450
//! ```
//! Arguments: window title, profile, output folder (`-` = save nothing), keys, capture time (ms).
//!
//! `frames read PROFILE FILE...` prints what the reader reads in saved frames, and for every
//! unreadable cell what [`Reader::growing_tile`] sees there.
use bot2048::capture::FrameSource;
use bot2048::engine::Move;
use bot2048::input::{FocusMode, KeySink};
use bot2048::vision::{Profile, ProfileChoice, Reader};
use std::time::{Duration, Instant};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.first().is_some_and(|s| s == "read") {
        return read_files(&a[1], &a[2..]);
    }
    let title = a.first().map_or("2048", String::as_str);
    let profile = a.get(1).map_or("web-2048", String::as_str);
    let out = a.get(2).map_or("-", String::as_str);
    let keys = a.get(3).map_or("down,left,down,right", String::as_str);
    let span: u64 = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(450);
    let desktop = bot2048::platform::desktop().expect("desktop");
    let mut game = desktop.open(title, FocusMode::Start).expect("window");
    game.set_failsafe(false);
    let mut reader = Reader::new(ProfileChoice::Given(
        Profile::load(profile).expect("profile"),
    ));
    if out != "-" {
        std::fs::create_dir_all(out).expect("out dir");
    }
    for (k, key) in keys.split(',').enumerate() {
        let m: Move = key.parse().expect("key");
        let before = game.next_frame().expect("frame");
        let b = reader.read(&before.image).ok().and_then(|r| r.values());
        println!("key {k} {m} before {b:?}");
        let at = Instant::now();
        game.press(m).expect("press");
        let mut frames = Vec::new();
        while at.elapsed() < Duration::from_millis(span) {
            let f = game.next_frame().expect("frame");
            frames.push(f);
        }
        for (i, f) in frames.iter().enumerate() {
            let ms = f.taken_at.duration_since(at).as_secs_f64() * 1000.0;
            let r = reader.read(&f.image);
            let txt = match &r {
                Ok(r) => format!(
                    "{:?} issues {:?}",
                    r.cells_by_row(),
                    r.issues
                        .iter()
                        .map(|i| (i.row, i.col, i.problem.to_string()))
                        .collect::<Vec<_>>()
                ),
                Err(e) => e.to_string(),
            };
            println!("  {i:3} {ms:6.1} ms {txt}");
            if out != "-" {
                f.image
                    .save(format!("{out}/k{k:02}-{i:03}-{ms:03.0}ms.png"))
                    .expect("save");
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn read_files(profile: &str, files: &[String]) {
    let mut reader = Reader::new(ProfileChoice::Given(
        Profile::load(profile).expect("profile"),
    ));
    for f in files {
        let img = image::open(f).expect("image").to_rgba8();
        let r = reader.read(&img).expect("board");
        let grown: Vec<_> = r
            .issues
            .iter()
            .map(|i| (i.row, i.col, reader.growing_tile(&img, i.row, i.col)))
            .collect();
        println!("{f}: {:?} growing {grown:?}", r.cells_by_row());
    }
}
