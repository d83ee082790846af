//! Tests: `bot2048 train` end to end on a small network (2 × 4-tuples): checkpoint, resume,
//! shipping copy, greedy measurement, and refused files.
use bot2048::solver::ntuple::{Network, Spec};
use std::process::{Command, Output};

fn train(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bot2048"))
        .arg("train")
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn train_writes_a_checkpoint_resumes_ships_and_measures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("n.bin");
    let ship = dir.path().join("n.ship");
    let (out_s, ship_s) = (out.to_str().unwrap(), ship.to_str().unwrap());
    let o = train(&[
        "--network",
        "0123,4567",
        "--games",
        "200",
        "--threads",
        "2",
        "--out",
        out_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let net = Network::load(&out).unwrap();
    assert_eq!(net.games(), 200);
    assert_eq!(net.spec(), &"0123,4567".parse::<Spec>().unwrap());
    assert!(net.note().contains("--games 200"), "{}", net.note());

    // The same command with --resume and a larger goal carries on from game 200.
    let o = train(&[
        "--games",
        "300",
        "--resume",
        out_s,
        "--out",
        out_s,
        "--ship",
        ship_s,
        "--eval-games",
        "20",
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resumed 0123,4567 (200 games)"), "{err}");
    assert!(
        err.contains("greedy 1-ply, 20 games") && err.contains("2048 "),
        "{err}"
    );
    assert_eq!(Network::load(&out).unwrap().games(), 300);
    let shipped = Network::load(&ship).unwrap();
    assert_eq!(shipped.games(), 300);
    assert!(std::fs::metadata(&ship).unwrap().len() < std::fs::metadata(&out).unwrap().len());

    // A goal already reached trains nothing and leaves the checkpoint as it was.
    let o = train(&["--games", "100", "--resume", out_s, "--out", out_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(Network::load(&out).unwrap().games(), 300);
}

#[test]
fn train_refuses_bad_resume_files_with_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("n.bin");
    let out_s = out.to_str().unwrap();
    let o = train(&["--network", "0123", "--games", "10", "--out", out_s]);
    assert!(o.status.success(), "{}", stderr(&o));

    // Another shape than the file's.
    let o = train(&[
        "--network",
        "4x6",
        "--games",
        "20",
        "--resume",
        out_s,
        "--out",
        out_s,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(out_s) && err.contains("0123") && err.contains("012345"),
        "{err}"
    );

    // Truncated.
    let bytes = std::fs::read(&out).unwrap();
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = train(&[
        "--games",
        "20",
        "--resume",
        cut.to_str().unwrap(),
        "--out",
        out_s,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("truncated") && err.contains("cut.bin"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    // Not a network.
    let png = dir.path().join("x.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n....").unwrap();
    let o = train(&[
        "--games",
        "20",
        "--resume",
        png.to_str().unwrap(),
        "--out",
        out_s,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not a bot2048 network file") && err.contains("x.png"),
        "{err}"
    );

    // A bad spec is a usage error.
    let o = train(&["--network", "01z", "--games", "1", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn train_promotes_a_one_stage_file_to_stages_and_trains_each_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.bin"), dir.path().join("two.bin"));
    let (one_s, two_s) = (one.to_str().unwrap(), two.to_str().unwrap());
    let o = train(&[
        "--network",
        "0123,4567",
        "--games",
        "100",
        "--tc",
        "--threads",
        "1",
        "--out",
        one_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Stage 1 for the boards with a 64 or more: nearly every game gets there.
    let o = train(&[
        "--network",
        "0123,4567@64",
        "--games",
        "160",
        "--tc",
        "--threads",
        "1",
        "--resume",
        one_s,
        "--out",
        two_s,
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("promoting 0123,4567 (100 games) to 0123,4567@64"),
        "{err}"
    );
    let (before, after) = (Network::load(&one).unwrap(), Network::load(&two).unwrap());
    assert_eq!(after.spec().to_string(), "0123,4567@64");
    assert_eq!(after.games(), 160);
    let n = before.weight_count();
    assert_eq!(after.weight_count(), 2 * n);
    // Both stages learnt from the 60 games, each its own way.
    let w = |net: &Network, i: usize| net.weight(i).unwrap();
    let moved = |stage: usize| {
        (0..n)
            .filter(|&i| w(&after, stage * n + i) != w(&before, i))
            .count()
    };
    assert!(moved(0) > 0 && moved(1) > 0, "{} {}", moved(0), moved(1));
    assert!((0..n).any(|i| w(&after, i) != w(&after, n + i)));

    // The staged file resumes as it is, with its spec or without one.
    for (spec, games) in [(Some("0123,4567@64"), 170), (None, 180)] {
        let games = games.to_string();
        let mut args = vec!["--games", &games, "--tc", "--resume", two_s, "--out", two_s];
        args.extend(spec.iter().flat_map(|s| ["--network", *s]));
        let o = train(&args);
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        assert!(
            !err.contains("promoting") && err.contains("resumed 0123,4567@64"),
            "{err}"
        );
        assert_eq!(
            Network::load(&two).unwrap().games(),
            games.parse::<u64>().unwrap()
        );
    }
    // A staged spec of other tuples is refused, naming both.
    let o = train(&[
        "--network",
        "0123@64",
        "--games",
        "200",
        "--resume",
        one_s,
        "--out",
        two_s,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(one_s) && err.contains("0123,4567"), "{err}");
}

#[test]
fn train_writes_no_file_it_was_not_given() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bot2048"))
            .current_dir(dir.path())
            .arg("train")
            .args(args)
            .output()
            .unwrap()
    };
    // nothing to train and nowhere to write: refused, nothing written in the current directory
    let o = run(&["--network", "0123", "--games", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out FILE"), "{}", stderr(&o));
    // training without --out: refused before the first game
    let o = run(&["--network", "0123", "--games", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("needs --out FILE"), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // --games 0 with --out writes the untrained network there, and says so
    let o = run(&["--network", "0123", "--games", "0", "--out", "new.bin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("new.bin"), "{}", stderr(&o));
    assert_eq!(
        Network::load(dir.path().join("new.bin")).unwrap().games(),
        0
    );
}
