//! Tests: every labelled screenshot in `../shared/corpus` read and compared cell by cell with its
//! label (`?` = must be reported unreadable); calibration from part of a game's screenshots;
//! random and corrupted images.
use bot2048::vision::calibrate::Learner;
use bot2048::vision::io::{decode_bytes, load_image};
use bot2048::vision::labels::{labelled_images, Label};
use bot2048::vision::{BoardStatus, Profile, ProfileChoice, ReadError, Reader};
use std::path::Path;

const REAL: &str = "../shared/corpus/real";
const PUBLIC: &str = "../shared/corpus/public";

/// Public screenshots not read at 100% yet, with why (see the vision report). The test fails
/// if any other image is not read as labelled, and names every image of this list.
const PUBLIC_NOT_YET: &[(&str, &str)] = &[
    (
        "andstatus-game2048_dark_phone_gameover-overlay.png",
        "'Game Over' caption hides digits of 3 cells (reported unreadable)",
    ),
    (
        "andstatus-game2048_light_6x6_early.png",
        "thin font: one 2048 tile's digits not matched (reported unreadable)",
    ),
    (
        "andstatus-game2048_light_phone_gameover-overlay_ru.png",
        "caption over row 2 hides digits of 4 cells (reported unreadable)",
    ),
];

/// Per-image result: cells as labelled, cells given a wrong value (never allowed), total.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Score {
    ok: usize,
    wrong: usize,
    total: usize,
}

fn read_label(txt: &Path) -> Label {
    Label::parse(&std::fs::read_to_string(txt).expect("label")).expect("label parses")
}

/// Reads one image with `reader` and scores it against its label. A label number is right only
/// if read exactly; a `?` only if the reader reports the cell unreadable. A value given where the
/// label has another value (or `?`) is wrong.
fn score(reader: &mut Reader, img: &Path, label: &Label) -> (Score, String) {
    let image = load_image(img).expect("corpus image loads");
    reader.forget_grid();
    let total = label.cells.iter().map(Vec::len).sum();
    let reading = match reader.read(&image) {
        Ok(r) => r,
        Err(e) => {
            return (
                Score {
                    ok: 0,
                    wrong: 0,
                    total,
                },
                e.to_string(),
            )
        }
    };
    if (reading.grid.rows, reading.grid.cols) != label.shape() {
        let why = format!(
            "grid {}x{}, label {:?}",
            reading.grid.rows,
            reading.grid.cols,
            label.shape()
        );
        return (
            Score {
                ok: 0,
                wrong: total,
                total,
            },
            why,
        );
    }
    let got = reading.cells_by_row();
    let mut s = Score {
        total,
        ..Score::default()
    };
    for (lr, gr) in label.cells.iter().zip(&got) {
        for (l, g) in lr.iter().zip(gr) {
            match (l, g) {
                (a, b) if a == b => s.ok += 1,
                (_, Some(_)) => s.wrong += 1,
                (Some(_), None) | (None, None) => {}
            }
        }
    }
    (s, bot2048::vision::describe(&reading.issues))
}

fn check_dir(dir: &Path, choice: &ProfileChoice) -> Vec<(String, Score, String)> {
    let mut reader = Reader::new(choice.clone());
    labelled_images(dir)
        .expect("corpus dir")
        .into_iter()
        .map(|(img, txt)| {
            let (s, why) = score(&mut reader, &img, &read_label(&txt));
            (
                img.file_name().unwrap().to_string_lossy().into_owned(),
                s,
                why,
            )
        })
        .collect()
}

#[test]
fn real_games_read_at_100_percent_with_auto_profile() {
    for game in ["gnome-2048", "2048-qt", "web-2048"] {
        let results = check_dir(&Path::new(REAL).join(game), &ProfileChoice::Auto);
        assert!(results.len() >= 6, "{game}: corpus present");
        for (name, s, why) in results {
            assert_eq!(s.ok, s.total, "{game}/{name}: {s:?} {why}");
        }
    }
}

#[test]
fn real_games_read_at_100_percent_with_their_profile() {
    for game in ["gnome-2048", "2048-qt", "web-2048"] {
        let p = Profile::load(game).expect("built-in");
        for (name, s, why) in check_dir(&Path::new(REAL).join(game), &ProfileChoice::Given(p)) {
            assert_eq!(s.ok, s.total, "{game}/{name}: {s:?} {why}");
        }
    }
}

#[test]
fn real_game_statuses() {
    let mut reader = Reader::new(ProfileChoice::Auto);
    let cases = [
        (
            "web-2048/web-2048-03-gameover-overlay-119keys-098moves.png",
            BoardStatus::GameOver,
        ),
        (
            "web-2048/web-2048-monitor-gameover-overlay.png",
            BoardStatus::GameOver,
        ),
        (
            "web-2048/web-2048-09-seeded-you-win-overlay-001key.png",
            BoardStatus::Won,
        ),
        (
            "web-2048/web-2048-02-random-050keys-046moves.png",
            BoardStatus::Ok,
        ),
        // No overlay in gnome / Qt: game over seen as "no legal move".
        (
            "2048-qt/2048-qt-04-gameover-268keys-238moves-dialog-moved-away.png",
            BoardStatus::GameOver,
        ),
        (
            "gnome-2048/gnome-2048-08-seeded-win-1key-window-with-dialog-on-top.png",
            BoardStatus::Unreadable,
        ),
    ];
    for (file, status) in cases {
        reader.forget_grid();
        let img = load_image(&Path::new(REAL).join(file)).unwrap();
        assert_eq!(reader.read(&img).unwrap().status, status, "{file}");
    }
}

#[test]
fn occluded_cells_are_never_read_as_empty() {
    // gnome-2048-08: a black rectangle covers the middle four cells (label `?`).
    let img = load_image(
        &Path::new(REAL)
            .join("gnome-2048/gnome-2048-08-seeded-win-1key-window-with-dialog-on-top.png"),
    )
    .unwrap();
    let mut reader = Reader::new(ProfileChoice::Given(Profile::load("gnome-2048").unwrap()));
    let r = reader.read(&img).unwrap();
    assert_eq!(r.unreadable_cells(), vec![(1, 1), (1, 2), (2, 1), (2, 2)]);
    assert!(r.values().is_none());
    match r.into_values() {
        Err(ReadError::Unreadable { issues }) => assert_eq!(issues.len(), 4),
        other => panic!("{other:?}"),
    }
}

#[test]
fn tracked_reader_reads_the_next_frame_and_refinds_a_moved_board() {
    let dir = Path::new(REAL).join("web-2048");
    let a = load_image(&dir.join("web-2048-02-random-050keys-046moves.png")).unwrap();
    let b = load_image(&dir.join("web-2048-05-game2-cycle-300keys-272moves.png")).unwrap();
    let mon = load_image(&dir.join("web-2048-monitor-gameover-overlay.png")).unwrap();
    let mut reader = Reader::new(ProfileChoice::Given(Profile::load("web-2048").unwrap()));
    let ra = reader.read(&a).unwrap();
    assert_eq!(reader.tracked_grid(), Some(ra.grid));
    let rb = reader.read(&b).unwrap();
    assert_eq!(rb.grid, ra.grid);
    assert_eq!(
        rb.values().unwrap(),
        vec![
            vec![0, 0, 0, 2],
            vec![0, 0, 4, 4],
            vec![0, 8, 4, 16],
            vec![0, 16, 512, 16]
        ]
    );
    // A frame of another size: searched from scratch.
    let rm = reader.read(&mon).unwrap();
    assert_ne!(rm.grid, ra.grid);
    assert_eq!(rm.values().unwrap()[1], vec![8, 32, 128, 8]);
}

#[test]
fn public_corpus() {
    let results = check_dir(Path::new(PUBLIC), &ProfileChoice::Auto);
    assert_eq!(results.len(), 25, "public corpus present");
    let mut unexpected = Vec::new();
    for (name, s, why) in &results {
        eprintln!(
            "public {name}: {}/{} cells, {} wrong {why}",
            s.ok, s.total, s.wrong
        );
        let listed = PUBLIC_NOT_YET.iter().any(|(n, _)| n == name);
        if s.wrong > 0 || (s.ok != s.total && !listed) {
            unexpected.push(format!("{name}: {s:?} {why}"));
        }
    }
    for (n, why) in PUBLIC_NOT_YET {
        eprintln!("not read yet: {n}: {why}");
        if results
            .iter()
            .any(|(name, s, _)| name == n && s.ok == s.total)
        {
            unexpected.push(format!("{n} is read now: remove it from PUBLIC_NOT_YET"));
        }
    }
    assert!(
        unexpected.is_empty(),
        "not read as labelled: {unexpected:#?}"
    );
}

#[test]
fn calibrate_from_part_and_read_the_rest() {
    for game in ["gnome-2048", "web-2048", "2048-qt"] {
        let pairs = labelled_images(&Path::new(REAL).join(game)).unwrap();
        // Learn from the even-numbered files, read the odd ones.
        let mut learner = Learner::new(&format!("{game}-half"));
        for (img, txt) in pairs.iter().step_by(2) {
            learner.add(
                &img.display().to_string(),
                load_image(img).unwrap(),
                read_label(txt),
            );
        }
        let (profile, _report) = learner.finish().expect("learns");
        // Round trip through TOML, as the CLI writes it.
        let profile = Profile::parse(&profile.to_toml(), "learned").expect("valid profile");
        let mut reader = Reader::new(ProfileChoice::Given(profile));
        for (img, txt) in pairs.iter().skip(1).step_by(2) {
            if img.to_string_lossy().contains("you-win-overlay") {
                // The "won" overlay is only in this file: the half cannot know it.
                continue;
            }
            let label = read_label(txt);
            let (s, why) = score(&mut reader, img, &label);
            // Values the half never showed cannot be read by colour: they must come out
            // unreadable, never wrong.
            assert_eq!(s.wrong, 0, "{}: {s:?} {why}", img.display());
            assert!(s.ok * 10 >= s.total * 8, "{}: {s:?} {why}", img.display());
        }
    }
}

#[test]
fn scaled_real_screenshots_read_the_same() {
    // Another window or monitor size: the grid search and the glyphs are scale-free.
    for file in [
        "gnome-2048/gnome-2048-07-seeded-all-values-2-to-65536",
        "web-2048/web-2048-07-seeded-all-values-2-to-65536",
        "2048-qt/2048-qt-05-game2-cycle-450keys-408moves",
    ] {
        let img = load_image(&Path::new(REAL).join(format!("{file}.png"))).unwrap();
        let label = read_label(&Path::new(REAL).join(format!("{file}.txt")));
        let want: Vec<Vec<u32>> = label
            .cells
            .iter()
            .map(|r| r.iter().map(|c| c.unwrap()).collect())
            .collect();
        for f in [0.45f32, 0.7, 1.3] {
            let (w, h) = (
                (img.width() as f32 * f) as u32,
                (img.height() as f32 * f) as u32,
            );
            let scaled = image::imageops::resize(&img, w, h, image::imageops::FilterType::Triangle);
            let mut reader = Reader::new(ProfileChoice::Auto);
            let got = reader.read(&scaled).unwrap().values();
            assert_eq!(got.as_ref(), Some(&want), "{file} x{f}");
        }
    }
}

/// A tiny deterministic generator (xorshift) for the noise tests.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn no_board_in_noise_or_blocks() {
    let mut reader = Reader::new(ProfileChoice::Auto);
    let mut st = 0x9E37_79B9_7F4A_7C15u64;
    for case in 0..12 {
        let (w, h) = (
            200 + (xorshift(&mut st) % 500) as u32,
            200 + (xorshift(&mut st) % 500) as u32,
        );
        let mut img = image::RgbaImage::new(w, h);
        if case % 2 == 0 {
            for p in img.pixels_mut() {
                let v = xorshift(&mut st);
                *p = image::Rgba([v as u8, (v >> 8) as u8, (v >> 16) as u8, 255]);
            }
        } else {
            // Random rectangles, some in board colours.
            let palette = [
                [187u8, 173, 160],
                [205, 193, 180],
                [186, 189, 182],
                [255, 255, 255],
                [250, 248, 239],
            ];
            for _ in 0..40 {
                let c = palette[(xorshift(&mut st) % 5) as usize];
                let (x0, y0) = (
                    (xorshift(&mut st) % u64::from(w)) as u32,
                    (xorshift(&mut st) % u64::from(h)) as u32,
                );
                let (rw, rh) = (
                    1 + (xorshift(&mut st) % 150) as u32,
                    1 + (xorshift(&mut st) % 150) as u32,
                );
                for y in y0..(y0 + rh).min(h) {
                    for x in x0..(x0 + rw).min(w) {
                        img.put_pixel(x, y, image::Rgba([c[0], c[1], c[2], 255]));
                    }
                }
            }
        }
        reader.forget_grid();
        match reader.read(&img) {
            Err(ReadError::NoBoard(_)) => {}
            other => panic!(
                "case {case}: found a board in noise: {:?}",
                other.map(|r| r.grid)
            ),
        }
    }
}

#[test]
fn corrupted_images_give_errors_not_panics() {
    let bytes =
        std::fs::read(Path::new(REAL).join("gnome-2048/gnome-2048-01-start-000keys.png")).unwrap();
    assert!(decode_bytes(&[], "empty").is_err());
    assert!(decode_bytes(b"not an image at all", "text").is_err());
    assert!(decode_bytes(&bytes[..bytes.len() / 2], "truncated").is_err());
    let mut flipped = bytes.clone();
    let mut st = 12345u64;
    let mut reader = Reader::new(ProfileChoice::Auto);
    for _ in 0..20 {
        let i = 64 + (xorshift(&mut st) as usize) % (flipped.len() - 64);
        flipped[i] ^= 0x5A;
        // Either a decode error or an image the reader handles without panicking.
        if let Ok(img) = decode_bytes(&flipped, "flipped") {
            reader.forget_grid();
            let _ = reader.read(&img);
        }
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]
        /// Any small image: no panic; and a uniform or two-colour striped image has no board.
        #[test]
        fn random_images_never_panic(w in 1u32..300, h in 1u32..300, seed: u64, stripes in 1u32..40) {
            let mut st = seed | 1;
            let a = xorshift(&mut st);
            let b = xorshift(&mut st);
            let img = image::RgbaImage::from_fn(w, h, |x, _| {
                let v = if (x / stripes) % 2 == 0 { a } else { b };
                image::Rgba([v as u8, (v >> 8) as u8, (v >> 16) as u8, 255])
            });
            let mut reader = Reader::new(ProfileChoice::Auto);
            prop_assert!(reader.read(&img).is_err());
        }
    }
}

/// `bot2048 read` and `bot2048 calibrate` as a user runs them (kept here, beside the corpus
/// tests, so `tests/cli.rs` stays free for the other subcommands).
mod cli {
    use super::REAL;
    use std::path::Path;
    use std::process::{Command, Output};

    fn bot(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_bot2048"))
            .args(args)
            .output()
            .expect("runs")
    }

    fn stdout(o: &Output) -> String {
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn stderr(o: &Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    fn real(p: &str) -> String {
        Path::new(REAL).join(p).to_string_lossy().into_owned()
    }

    #[test]
    fn read_prints_the_label_format() {
        let o = bot(&[
            "read",
            &real("web-2048/web-2048-02-random-050keys-046moves.png"),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "2 0 0 2\n4 16 8 0\n16 64 2 0\n4 2 16 8\n");
    }

    #[test]
    fn read_several_names_each_file() {
        let a = real("gnome-2048/gnome-2048-01-start-000keys.png");
        let b = real("2048-qt/2048-qt-01-start-000keys.png");
        let o = bot(&["read", &a, &b]);
        assert_eq!(o.status.code(), Some(0));
        let want = format!(
            "{a}\n0 0 0 0\n0 0 0 0\n0 2 0 0\n2 0 0 0\n{b}\n0 0 0 0\n0 2 0 0\n0 0 0 0\n0 0 2 0\n"
        );
        assert_eq!(stdout(&o), want);
    }

    #[test]
    fn read_unreadable_cells_exit_2_and_say_which() {
        let o = bot(&[
            "read",
            "--profile",
            "gnome-2048",
            &real("gnome-2048/gnome-2048-08-seeded-win-1key-window-with-dialog-on-top.png"),
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(stdout(&o), "2048 0 0 0\n0 ? ? 0\n4 ? ? 2\n2 0 0 0\n");
        let e = stderr(&o);
        assert!(
            e.contains("row 1 col 1") && e.contains("row 2 col 2") && e.contains("black"),
            "{e}"
        );
    }

    #[test]
    fn read_json_has_every_key() {
        let o = bot(&[
            "read",
            "--json",
            &real("web-2048/web-2048-09-seeded-you-win-overlay-001key.png"),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(v["image"]["width"], 600);
        assert_eq!(v["image"]["height"], 900);
        for k in ["x", "y", "width", "height"] {
            assert!(v["grid"][k].is_u64(), "grid.{k}");
        }
        assert_eq!(v["rows"], 4);
        assert_eq!(v["cols"], 4);
        assert_eq!(v["cells"][0][0]["value"], 2048);
        assert!(v["cells"][0][0]["confidence"].as_f64().unwrap() >= 0.5);
        assert_eq!(v["status"], "won");
        assert_eq!(v["profile"], "web-2048");
        assert!(v["time_ms"].as_f64().unwrap() > 0.0);
    }

    #[test]
    fn read_annotate_writes_a_png_of_the_same_size() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("seen.png");
        let o = bot(&[
            "read",
            "--annotate",
            out.to_str().unwrap(),
            &real("2048-qt/2048-qt-02-random-050keys-045moves.png"),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let img = image::open(&out).expect("annotated png");
        assert_eq!((img.width(), img.height()), (550, 740));
    }

    #[test]
    fn read_bad_files_exit_1_with_a_clear_message() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.png");
        std::fs::write(&empty, b"").unwrap();
        let text = dir.path().join("notes.png");
        std::fs::write(&text, b"this is not an image\n").unwrap();
        let bytes = std::fs::read(real("gnome-2048/gnome-2048-01-start-000keys.png")).unwrap();
        let cut = dir.path().join("cut.png");
        std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
        let cases = [
            (dir.path().join("missing.png"), "no such file"),
            (empty, "empty"),
            (text, "not a PNG or JPEG"),
            (cut, "corrupt or truncated"),
            (dir.path().to_path_buf(), "not a PNG or JPEG"),
        ];
        for (path, msg) in cases {
            let o = bot(&["read", path.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(1), "{}", path.display());
            assert!(
                stderr(&o).contains(msg),
                "{}: {}",
                path.display(),
                stderr(&o)
            );
        }
        // A huge image header (PNG claiming 100000 x 100000): refused by the decoder limits.
        let mut huge = bytes[..33].to_vec();
        huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let hp = dir.path().join("huge.png");
        std::fs::write(&hp, &huge).unwrap();
        let o = bot(&["read", hp.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }

    #[test]
    fn read_no_board_exits_2() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plain.png");
        image::RgbaImage::from_pixel(300, 200, image::Rgba([250, 248, 239, 255]))
            .save(&p)
            .unwrap();
        let o = bot(&["read", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("no 2048 board"), "{}", stderr(&o));
    }

    #[test]
    fn read_bad_profile_exits_1_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, "name = \"bad\"\n[board]\ncolour = \"#12345\"\n").unwrap();
        let o = bot(&[
            "read",
            "--profile",
            p.to_str().unwrap(),
            &real("gnome-2048/gnome-2048-01-start-000keys.png"),
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("colour"), "{}", stderr(&o));
        let o = bot(&[
            "read",
            "--profile",
            "no-such-game",
            &real("gnome-2048/gnome-2048-01-start-000keys.png"),
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("gnome-2048, 2048-qt, web-2048"),
            "{}",
            stderr(&o)
        );
    }

    #[test]
    fn calibrate_writes_once_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g.toml");
        let from = real("gnome-2048");
        let args = [
            "calibrate",
            "--from",
            &from,
            "--name",
            "g",
            "--out",
            out.to_str().unwrap(),
        ];
        let o = bot(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains("digits learned"));
        let first = std::fs::read_to_string(&out).unwrap();
        std::fs::write(&out, "name = \"keep me\"\n").unwrap();
        let o = bot(&args);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "name = \"keep me\"\n"
        );
        let mut forced = args.to_vec();
        forced.push("--force");
        assert_eq!(bot(&forced).status.code(), Some(0));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), first);
        // No temporary file left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // The learned profile reads the game.
        let o = bot(&[
            "read",
            "--profile",
            out.to_str().unwrap(),
            &real("gnome-2048/gnome-2048-05-game2-cycle-300keys-274moves.png"),
        ]);
        assert_eq!(stdout(&o), "0 2 4 2\n2 0 16 4\n2 16 64 8\n16 128 256 32\n");
    }

    #[test]
    fn calibrate_window_without_a_display_is_a_clear_error() {
        // Live calibration needs an X display; without one it must say so, exit 1, write nothing.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.toml");
        let o = Command::new(env!("CARGO_BIN_EXE_bot2048"))
            .args([
                "calibrate",
                "--window",
                "2048",
                "--out",
                out.to_str().unwrap(),
            ])
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("no X display"), "{}", stderr(&o));
        assert!(!out.exists());
    }

    #[test]
    fn builtin_profiles_are_what_calibrate_makes() {
        // The embedded profiles were made with `calibrate --from ../shared/corpus/real/<game>`.
        for game in ["gnome-2048", "2048-qt", "web-2048"] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("p.toml");
            let o = bot(&[
                "calibrate",
                "--from",
                &real(game),
                "--name",
                game,
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            let made = std::fs::read_to_string(&out).unwrap();
            let shipped =
                std::fs::read_to_string(Path::new("calibration").join(format!("{game}.toml")))
                    .unwrap();
            assert_eq!(made, shipped, "{game}: calibration/{game}.toml is stale");
        }
    }
}
