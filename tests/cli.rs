//! Tests: cli (clap's own consistency check, `sim` and `sim --compare` end to end).
use bot2048::cli::Cli;
use bot2048::sim::chart;
use bot2048::solver::registry;
use clap::CommandFactory;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
}

/// `--no-learn` is an option of `play` and of `advise` (they share the target's arguments), and
/// off unless given.
#[test]
fn no_learn_parses_for_play_and_advise() {
    use bot2048::cli::Command as Sub;
    use clap::Parser;
    for (args, want) in [
        (vec!["bot2048", "play", "--window", "w", "--no-learn"], true),
        (vec!["bot2048", "play", "--window", "w"], false),
        (
            vec!["bot2048", "advise", "--window", "w", "--no-learn"],
            true,
        ),
        (vec!["bot2048", "advise", "--window", "w"], false),
    ] {
        let cli = Cli::try_parse_from(&args).unwrap();
        let got = match cli.command {
            Sub::Play(p) => p.target.no_learn,
            Sub::Advise(a) => a.target.no_learn,
            _ => unreachable!("{args:?}"),
        };
        assert_eq!(got, want, "{args:?}");
    }
}

fn bot2048() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bot2048"))
}

/// The JSON `bot2048 ARGS` prints with no tables built (an empty `BOT2048_TABLES`, so that
/// `--eval auto` is the heuristic), after a successful exit.
fn json_without_tables(args: &[&str]) -> serde_json::Value {
    let tables = tempfile::tempdir().unwrap();
    let out = bot2048()
        .args(args)
        .env("BOT2048_TABLES", tables.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sim_json_has_the_issue_keys_and_sane_values() {
    let v = json_without_tables(&[
        "sim", "--games", "2", "--seed", "3", "--depth", "1", "--json",
    ]);
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    keys.sort();
    // the keys of earlier versions, plus the mean decision time, the games won (--goal) and
    // the evaluation played with
    assert_eq!(
        keys,
        [
            "avg_score",
            "decision_ms_mean",
            "decision_ms_median",
            "decision_ms_p99",
            "evaluation",
            "games",
            "max_tile_counts",
            "median_score",
            "moves",
            "moves_per_sec",
            "reach_rates",
            "won"
        ]
    );
    assert_eq!(v["evaluation"], "heuristic");
    assert_eq!(v["games"], 2);
    // Two games: the tile counts add up to 2, and reach rates fall as tiles grow.
    let counts: u64 = v["max_tile_counts"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(counts, 2);
    let rates = v["reach_rates"].as_object().unwrap();
    let tiles = ["1024", "2048", "4096", "8192", "16384", "32768", "65536"];
    for t in tiles {
        let r = rates[t].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&r), "{t}: {r}");
    }
    for w in tiles.windows(2) {
        assert!(rates[w[0]].as_f64().unwrap() >= rates[w[1]].as_f64().unwrap());
    }
    // Depth-1 expectimax survives far beyond 100 moves in any game.
    assert!(v["moves"].as_u64().unwrap() > 100);
    assert!(v["avg_score"].as_f64().unwrap() > 0.0);
    assert!(v["decision_ms_p99"].as_f64().unwrap() >= v["decision_ms_median"].as_f64().unwrap());
}

#[test]
fn sim_is_repeatable_at_a_fixed_depth() {
    let run = || {
        let out = bot2048()
            .args([
                "sim", "--games", "1", "--seed", "9", "--depth", "0", "--json",
            ])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["avg_score"].clone(), v["moves"].clone())
    };
    assert_eq!(run(), run());
}

#[test]
fn sim_rejects_bad_input_without_panicking() {
    let unknown = bot2048()
        .args(["sim", "--solver", "nope", "--games", "1"])
        .output()
        .unwrap();
    // an unknown solver is a usage error, as a bad --spawn is for clap (cli::exit::USAGE)
    assert_eq!(unknown.status.code(), Some(2));
    let bad_spawn = bot2048()
        .args(["sim", "--spawn", "sometimes", "--games", "1"])
        .output()
        .unwrap();
    assert_eq!(bad_spawn.status.code(), Some(2));
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(err.contains("nope") && err.contains("expectimax"), "{err}");
    assert!(!err.contains("panicked"));

    let zero = bot2048().args(["sim", "--games", "0"]).output().unwrap();
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--games"));

    let bad_out = bot2048()
        .args([
            "sim",
            "--games",
            "1",
            "--depth",
            "0",
            "--out",
            "/nonexistent-dir/chart.png",
        ])
        .output()
        .unwrap();
    assert_eq!(bad_out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_out.stderr).contains("nonexistent-dir"));

    let junk = bot2048().args(["sim", "--size", "10x10"]).output().unwrap();
    assert_eq!(junk.status.code(), Some(2), "clap usage error");
    assert!(String::from_utf8_lossy(&junk.stderr).contains("2 to 9"));
}

#[test]
fn sim_draws_a_png_chart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chart.png");
    let out = bot2048()
        .args(["sim", "--games", "2", "--depth", "0", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::open(&path).unwrap();
    assert_eq!((img.width(), img.height()), (chart::WIDTH, chart::HEIGHT));
}

/// The keys of `sim --json`, sorted.
const SIM_KEYS: [&str; 12] = [
    "avg_score",
    "decision_ms_mean",
    "decision_ms_median",
    "decision_ms_p99",
    "evaluation",
    "games",
    "max_tile_counts",
    "median_score",
    "moves",
    "moves_per_sec",
    "reach_rates",
    "won",
];

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = bot2048().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // not a terminal: no progress bar, nothing on stderr
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each solver of a comparison names the evaluation it played with: `--eval`'s (`auto`, with
/// no tables the heuristic) or its own after a `/`.
#[test]
fn sim_compare_json_names_each_solvers_evaluation() {
    let v = json_without_tables(&[
        "sim",
        "--compare",
        "expectimax,expectimax/corner",
        "--games",
        "1",
        "--seed",
        "5",
        "--depth",
        "0",
        "--json",
    ]);
    assert_eq!(v["expectimax"]["evaluation"], "heuristic");
    assert_eq!(v["expectimax/corner"]["evaluation"], "corner");
}

#[test]
fn sim_compare_json_has_one_summary_per_solver_on_the_same_seeds() {
    let both = json_of(&[
        "sim",
        "--compare",
        "expectimax,greedy",
        "--games",
        "2",
        "--seed",
        "5",
        "--depth",
        "1",
        "--json",
    ]);
    let obj = both.as_object().unwrap();
    let names: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    assert_eq!(names, ["expectimax", "greedy"]);
    for (name, v) in obj {
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort();
        assert_eq!(keys, SIM_KEYS, "{name}");
        assert_eq!(v["games"], 2, "{name}");
    }
    assert_eq!(
        both["expectimax"]["reach_rates"]
            .as_object()
            .unwrap()
            .keys()
            .count(),
        7
    );
    // Each solver alone, on the same seed at a fixed amount of work, plays the same games.
    let alone = |solver: &str, extra: &[&str]| {
        let mut args = vec![
            "sim", "--solver", solver, "--games", "2", "--seed", "5", "--json",
        ];
        args.extend(extra);
        json_of(&args)
    };
    for (solver, extra) in [("expectimax", &["--depth", "1"][..]), ("greedy", &[][..])] {
        let v = alone(solver, extra);
        for key in ["avg_score", "median_score", "moves", "max_tile_counts"] {
            assert_eq!(v[key], both[solver][key], "{solver} {key}");
        }
    }
    assert_ne!(both["expectimax"]["moves"], both["greedy"]["moves"]);
}

#[test]
fn sim_compare_prints_one_table_with_each_budget() {
    let out = bot2048()
        .args([
            "sim",
            "--compare",
            "greedy,expectimax",
            "--games",
            "2",
            "--seed",
            "5",
            "--depth",
            "0",
            "--opt",
            "cprob=0.001",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<&str> = text.lines().collect();
    assert!(
        rows[1].starts_with("solver") && rows[1].contains("ms/move"),
        "{text}"
    );
    assert!(
        rows[2].starts_with("greedy") && rows[2].contains("ignores budgets"),
        "{text}"
    );
    assert!(
        rows[3].starts_with("expectimax") && rows[3].contains("depth 0"),
        "{text}"
    );
}

/// `sim --games-out` writes one line of JSON a game: its final board, its largest tile (the
/// board's, and the last one it reached), and a score that the board's tiles bound (a tile of
/// 2^k made of 2s scores (k - 1) 2^k, of 4s (k - 2) 2^k: merges keep the tiles' sum); the lines'
/// scores average to the summary's. An existing file is refused (exit 2) and kept, and
/// `--force` with no file to replace is refused.
#[test]
fn sim_games_out_writes_each_game_and_refuses_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.jsonl");
    let run = |extra: &[&str]| {
        bot2048()
            .args(["sim", "--games", "3", "--depth", "1", "--eval", "heuristic"])
            .args(["--seed", "5", "--json", "--games-out"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap()
    };
    let res = run(&[]);
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&res.stdout).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let mut indices: Vec<u64> = lines.iter().map(|g| g["index"].as_u64().unwrap()).collect();
    indices.sort_unstable();
    assert_eq!(
        indices,
        [0, 1, 2],
        "each game's line names its place in the run"
    );
    let mut scores = 0;
    for game in &lines {
        assert_eq!(game["solver"], "expectimax");
        assert_eq!(game["end"], "game_over");
        let tiles: Vec<u64> = game["board"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|row| row.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()))
            .collect();
        assert_eq!(tiles.len(), 16);
        assert!(tiles
            .iter()
            .all(|&t| t == 0 || t.is_power_of_two() && t >= 2));
        let top = *tiles.iter().max().unwrap();
        assert_eq!(game["max_tile"].as_u64(), Some(top));
        let reached = game["first_reached"].as_object().unwrap();
        let last = reached.keys().map(|k| k.parse::<u64>().unwrap()).max();
        assert_eq!(last, Some(top));
        let moves = game["moves"].as_u64().unwrap();
        assert!(reached.values().all(|m| m.as_u64().unwrap() <= moves));
        let made = |less: u32| -> u64 {
            let k = |t: u64| t.trailing_zeros();
            tiles
                .iter()
                .filter(|&&t| t > 2)
                .map(|&t| u64::from(k(t).saturating_sub(less)) * t)
                .sum()
        };
        let score = game["score"].as_u64().unwrap();
        assert!(made(2) <= score && score <= made(1), "{score}: {tiles:?}");
        scores += score;
    }
    assert_eq!(summary["avg_score"].as_f64(), Some(scores as f64 / 3.0));
    // an existing file is refused before any game, and kept
    let start = Instant::now();
    let res = run(&[]);
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // --force replaces it: the same seeds give the same games (in the order they end)
    let res = run(&["--force"]);
    assert!(res.status.success());
    let sorted = |t: &str| {
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let again = std::fs::read_to_string(&path).unwrap();
    assert_eq!(sorted(&again), sorted(&text));
    let res = bot2048()
        .args(["sim", "--games", "1", "--depth", "0", "--force"])
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--games-out"));
    // an option value out of range is refused before --games-out is created, and with --force
    // the file it would replace is kept
    let fresh = dir.path().join("fresh.jsonl");
    for (target, force) in [(&fresh, false), (&path, true)] {
        let mut args = vec!["sim", "--games", "1", "--depth", "0", "--opt", "cprob=3"];
        args.extend(force.then_some("--force"));
        let res = bot2048()
            .args(&args)
            .arg("--games-out")
            .arg(target)
            .output()
            .unwrap();
        assert_eq!(res.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&res.stderr).contains("cprob=3"));
    }
    assert!(!fresh.exists(), "no empty --games-out left behind");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), again);
}

/// `sim --resume FILE --resume-at TILE` plays on every game of an earlier `--games-out` that
/// made TILE, from where it first had it: at the same fixed depth each ends as the original did
/// (same seed, score, moves and final board); a game that never made TILE is left out; a file
/// with no game at TILE is refused with its name (exit 1), a tile that is no tile as a usage
/// error (exit 2).
#[test]
fn sim_resume_plays_the_games_on_from_a_tile_and_they_end_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let (first, again) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let sim = |extra: &[&str], out: &std::path::Path| {
        bot2048()
            .args(["sim", "--depth", "1", "--eval", "heuristic", "--json"])
            .args(extra)
            .arg("--games-out")
            .arg(out)
            .output()
            .unwrap()
    };
    let sim_ok = |extra: &[&str], out: &std::path::Path| {
        let res = sim(extra, out);
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(res.status.success(), "sim {extra:?}: {err}");
        res
    };
    sim_ok(&["--games", "4", "--seed", "3"], &first);
    let games = |path: &std::path::Path| -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let originals = games(&first);
    let made_8192: Vec<&serde_json::Value> = originals
        .iter()
        .filter(|g| g["max_tile"].as_u64().unwrap() >= 8192)
        .collect();
    let tops: Vec<&serde_json::Value> = originals.iter().map(|g| &g["max_tile"]).collect();
    assert!(!made_8192.is_empty() && made_8192.len() < 4, "{tops:?}");
    let path = first.to_str().unwrap();
    let res = sim_ok(&["--resume", path, "--resume-at", "8192"], &again);
    let summary: serde_json::Value = serde_json::from_slice(&res.stdout).unwrap();
    assert_eq!(summary["games"].as_u64(), Some(made_8192.len() as u64));
    let resumed = games(&again);
    assert_eq!(resumed.len(), made_8192.len());
    for game in made_8192 {
        let same = resumed.iter().find(|r| r["seed"] == game["seed"]).unwrap();
        for key in ["score", "moves", "board", "max_tile", "first_reached"] {
            assert_eq!(same[key], game[key], "{key} of game {}", game["seed"]);
        }
        // taken up where its 8192 first stood, which a game played from its start never says
        assert_eq!(same["resumed_at_move"], game["first_reached"]["8192"]);
        assert!(game.get("resumed_at_move").is_none(), "{game}");
    }
    // a gnome-2048 run's games resume with its spawns (2s only), whatever --spawn defaults to
    let (twos, twos_again) = (dir.path().join("t.jsonl"), dir.path().join("u.jsonl"));
    sim_ok(
        &["--games", "2", "--seed", "3", "--spawn", "twos-only"],
        &twos,
    );
    let twos_path = twos.to_str().unwrap();
    sim_ok(&["--resume", twos_path, "--resume-at", "2048"], &twos_again);
    let (before, after) = (games(&twos), games(&twos_again));
    assert!(!after.is_empty());
    for game in &after {
        let same = before.iter().find(|g| g["seed"] == game["seed"]).unwrap();
        assert_eq!(
            (&same["score"], &same["board"]),
            (&game["score"], &game["board"])
        );
        assert_eq!(game["spawn"], "twos-only");
    }
    let res = sim(
        &["--resume", path, "--resume-at", "131072"],
        &dir.path().join("c.jsonl"),
    );
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("a.jsonl") && err.contains("131072"), "{err}");
    let res = sim(
        &["--resume", path, "--resume-at", "3000"],
        &dir.path().join("d.jsonl"),
    );
    assert_eq!(res.status.code(), Some(2));
}

/// The 16384 bench kept in `benches/data` (BENCHMARKS.md, "The bench kept in the repository")
/// resumes the 91 of its 100 games that made 16384 (the figure of the run that made it), each
/// from a board with its 16384 on it.
#[test]
fn the_16384_bench_in_benches_data_resumes_its_91_games() {
    let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/data/resume-16384-seed12.jsonl");
    let v = json_without_tables(&[
        "sim",
        "--eval",
        "heuristic",
        "--depth",
        "0",
        "--resume",
        bench.to_str().unwrap(),
        "--resume-at",
        "16384",
        "--max-moves",
        "7600",
        "--json",
    ]);
    assert_eq!(v["games"].as_u64(), Some(91));
    assert_eq!(v["resumed_at"].as_u64(), Some(16384));
    assert_eq!(v["reach_rates"]["16384"].as_f64(), Some(1.0));
}

#[test]
fn sim_refuses_an_existing_or_non_png_out_before_playing() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.png");
    std::fs::write(&old, b"keep me").unwrap();
    let txt = dir.path().join("c.txt");
    // 50 games at depth 2 take a minute or more here; a refusal takes milliseconds.
    let slow = ["--games", "50", "--depth", "2"];
    let cases: [(Vec<&str>, &std::path::Path, &str); 4] = [
        (vec!["sim"], &old, "--force"),
        (
            vec!["sim", "--compare", "expectimax,greedy"],
            &old,
            "--force",
        ),
        (vec!["sim"], &txt, ".png"),
        (
            vec!["sim", "--compare", "expectimax,greedy", "--force"],
            &txt,
            ".png",
        ),
    ];
    for (args, out, says) in cases {
        let start = Instant::now();
        let res = bot2048()
            .args(&args)
            .args(slow)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        let took = start.elapsed();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{args:?} {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "only the error, no progress: {err}");
        assert!(res.stdout.is_empty());
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    }
    assert_eq!(std::fs::read(&old).unwrap(), b"keep me");
    assert!(!txt.exists());
    // --force replaces it
    let res = bot2048()
        .args(["sim", "--games", "1", "--depth", "0", "--force", "--out"])
        .arg(&old)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert_eq!(image::open(&old).unwrap().width(), chart::WIDTH);
}

#[test]
fn sim_compare_names_the_known_solvers_once() {
    let res = bot2048()
        .args(["sim", "--compare", "expectimax,nope", "--games", "1"])
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("\"nope\""), "{err}");
    for name in registry::names() {
        assert_eq!(err.matches(name).count(), 1, "{name}: {err}");
    }
    let twice = bot2048()
        .args(["sim", "--compare", "greedy,greedy", "--games", "1"])
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("named twice"));
    let unused = bot2048()
        .args([
            "sim",
            "--compare",
            "expectimax,greedy",
            "--opt",
            "rollouts=3",
        ])
        .output()
        .unwrap();
    assert_eq!(unused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unused.stderr).contains("none of the solvers run has it"));
    let both = bot2048()
        .args(["sim", "--compare", "greedy", "--solver", "greedy"])
        .output()
        .unwrap();
    assert_eq!(
        both.status.code(),
        Some(2),
        "clap: --compare conflicts with --solver"
    );
}

#[test]
fn a_network_file_that_cannot_be_used_is_named_and_a_network_off_4x4_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"not a network at all, just some bytes").unwrap();
    let missing = dir.path().join("missing.bin");
    for (file, says) in [
        (&junk, "not a bot2048 network file"),
        (&missing, "cannot read"),
    ] {
        let eval = format!("ntuple:{}", file.display());
        let out = bot2048()
            .args(["sim", "--games", "1", "--eval", &eval, "--max-moves", "5"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // a bad file, not a usage error (cli::exit::ERROR)
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&file.display().to_string()) && err.contains(says),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let net = bot2048::solver::ntuple::Network::new("0123".parse().unwrap(), 0.0);
    let tiny = dir.path().join("tiny.bin");
    net.save(&tiny).unwrap();
    let eval = format!("ntuple:{}", tiny.display());
    let out = bot2048()
        .args(["sim", "--games", "1", "--eval", &eval, "--size", "5x5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("4x4 boards only"), "{err}");
}

/// `bot2048` with no X display: anything that gets past the argument checks exits 7.
fn headless() -> Command {
    let mut c = bot2048();
    c.env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_SESSION_TYPE", "x11");
    c
}

fn code_and_err(c: &mut Command) -> (Option<i32>, String) {
    let o = c.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn play_and_advise_check_their_arguments_before_looking_for_the_window() {
    let w = ["--window", "no such window"];
    for goal in ["3", "2", "6144", "0"] {
        let (code, err) = code_and_err(headless().args(["play"]).args(w).args(["--goal", goal]));
        assert_eq!(code, Some(2), "--goal {goal}: {err}");
        assert!(err.contains(&format!("--goal {goal}")), "{err}");
    }
    for sub in ["play", "advise"] {
        let (code, err) = code_and_err(headless().args([sub]).args(w).args(["--depth", "99"]));
        assert_eq!(code, Some(2), "{sub} --depth 99: {err}");
        assert!(err.contains("at most 12"), "{err}");
        // --profile auto (the default) and a built-in name get past the checks: no display
        for p in ["auto", "2048-qt"] {
            let (code, err) = code_and_err(headless().args([sub]).args(w).args(["--profile", p]));
            assert_eq!(code, Some(7), "{sub} --profile {p}: {err}");
            assert!(!err.contains("no profile"), "{err}");
        }
        let (code, err) = code_and_err(
            headless()
                .args([sub])
                .args(w)
                .args(["--profile", "no-such-profile"]),
        );
        assert_eq!(code, Some(2), "{sub}: {err}");
    }
    // a good goal gets past them too
    let (code, err) = code_and_err(headless().args(["play"]).args(w).args(["--goal", "2048"]));
    assert_eq!(code, Some(7), "{err}");
    // `sim` refuses a bad goal in the same words as `play`
    for goal in ["3", "6144"] {
        let (_, play) = code_and_err(headless().args(["play"]).args(w).args(["--goal", goal]));
        let (code, sim) = code_and_err(bot2048().args(["sim", "--goal", goal]));
        assert_eq!(code, Some(2), "sim --goal {goal}: {sim}");
        assert_eq!(sim, play, "sim and play --goal {goal}");
    }
}

/// clap's convention, in every subcommand: `-h` a short summary of each option, `--help` the long
/// text, ending with the exit codes and a few examples.
#[test]
fn short_help_is_a_summary_and_long_help_ends_with_examples() {
    let help = |args: &[&str]| {
        let o = bot2048().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    let subs: &[&[&str]] = &[
        &["read"],
        &["tables"],
        &["tables", "build"],
        &["tables", "status"],
        &["solvers"],
        &["play"],
        &["advise"],
        &["replay"],
        &["windows"],
        &["calibrate"],
        &["sim"],
        &["train"],
    ];
    for sub in subs {
        let short = help(&[sub, &["-h"][..]].concat());
        let long = help(&[sub, &["--help"][..]].concat());
        assert!(
            short.lines().count() < long.lines().count(),
            "{sub:?}: -h is {} lines, --help {}",
            short.lines().count(),
            long.lines().count()
        );
        assert!(
            short.contains("(see more with '--help')"),
            "{sub:?}: {short}"
        );
        assert!(!short.contains("Examples:"), "{sub:?}: {short}");
        let (_, examples) = long.split_once("\nExamples:\n").unwrap_or_default();
        let first = examples.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("  bot2048 {}", sub[0])),
            "{sub:?}: --help does not end with its examples: {long}"
        );
        assert!(long.contains("Exit status:"), "{sub:?}: {long}");
        assert!(
            !long.contains("[`") && !long.contains("`]"),
            "{sub:?}: {long}"
        );
    }
    // `read`'s options: one line each with -h
    let read = help(&["read", "-h"]);
    assert!(!read.contains("covered parts"), "{read}");
    assert!(help(&["read", "--help"]).contains("covered parts"));
    // what `tables build` costs, from build_cost
    // (the words, whatever clap's wrapping)
    let words = |s: String| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let build = words(help(&["tables", "build", "--help"]));
    for set in [
        bot2048::solver::tables::TableSet::Small,
        bot2048::solver::tables::TableSet::Full,
    ] {
        let cost = bot2048::solver::tables::build_cost(set);
        assert!(build.contains(&cost), "{cost}: {build}");
    }
    assert!(build.contains("about 4 minutes"), "{build}");
    // the rule of --goal, in play's and sim's help
    for sub in ["play", "sim"] {
        let h = words(help(&[sub, "-h"]));
        assert!(h.contains("--goal <TILE> Stop"), "{sub}: {h}");
        assert!(h.contains("a power of two from 4"), "{sub}: {h}");
    }
}

/// GNOME and KDE Wayland sessions without XWayland (`DISPLAY` unset): every command that needs
/// the desktop exits 7 and tells, per game, the command that starts it under XWayland.
#[test]
fn gnome_and_kde_wayland_sessions_are_told_how_to_start_each_game_under_xwayland() {
    for (desktop, name) in [("GNOME", "GNOME"), ("KDE", "KDE Plasma")] {
        for args in [
            &["play", "--window", "2048"][..],
            &["advise", "--window", "2048"],
            &["windows"],
        ] {
            let (code, err) = code_and_err(
                bot2048()
                    .args(args)
                    .env_remove("DISPLAY")
                    .env("WAYLAND_DISPLAY", "wayland-0")
                    .env("XDG_SESSION_TYPE", "wayland")
                    .env("XDG_CURRENT_DESKTOP", desktop),
            );
            assert_eq!(code, Some(7), "{desktop} {args:?}: {err}");
            for says in [
                format!("a Wayland session ({name}) without XWayland"),
                "gnome-2048:   GDK_BACKEND=x11 gnome-2048".into(),
                "2048-qt:      QT_QPA_PLATFORM=xcb 2048-qt".into(),
                "the web game: chromium --ozone-platform=x11 --app=URL".into(),
            ] {
                assert!(
                    err.contains(&says),
                    "{desktop} {args:?}: no `{says}` in {err}"
                );
            }
            assert!(!err.contains("panicked"), "{err}");
        }
    }
}

#[test]
fn play_refuses_a_record_directory_that_holds_a_recording_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    std::fs::create_dir_all(rec.join("frames")).unwrap();
    std::fs::write(rec.join("frames/000000.png"), b"old").unwrap();
    std::fs::write(rec.join("log.jsonl"), b"{}\n").unwrap();
    let w = ["play", "--window", "no such window", "--record"];
    let (code, err) = code_and_err(headless().args(w).arg(&rec));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("already holds a recording") && err.contains("--force"),
        "{err}"
    );
    assert!(
        err.contains("log.jsonl") && err.contains("frames/ with 1 files"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(rec.join("log.jsonl")).unwrap(),
        b"{}\n",
        "untouched"
    );
    // forced, the checks pass (and the display is what is missing)
    let (code, err) = code_and_err(headless().args(w).arg(&rec).arg("--force"));
    assert_eq!(code, Some(7), "{err}");
    // an empty or new directory is fine
    let (code, err) = code_and_err(headless().args(w).arg(dir.path().join("new")));
    assert_eq!(code, Some(7), "{err}");
    // --force and --record-max-mb need --record
    let (code, _) = code_and_err(headless().args(["play", "--window", "x", "--force"]));
    assert_eq!(code, Some(2));
}

#[test]
fn the_play_summary_speaks_words_not_enum_names() {
    use bot2048::cli::play::summary_text;
    let s = bot2048::play::Summary {
        moves: 300,
        score: 5000,
        max_tile: 512,
        desyncs: 0,
        rereads: 2,
        retries: 1,
        moves_per_sec: 4.0,
        stop_reason: bot2048::play::StopReason::MaxMoves,
        message: "reached --max-moves 300 (300 moves made)".into(),
        elapsed_s: 75.0,
        frame_to_key_ms: 10.0,
        key_to_settled_ms: 150.0,
        solve_ms: 5.0,
        ponder_ms: 120.0,
        ponder_nodes: 1e6,
        ponder_depth: 4.0,
        decide_nodes: 10.0,
        decide_depth: 4.0,
        final_board: vec![],
        final_read_matches: true,
        wins_continued: 0,
        dump: None,
        frames_capped_from: Some(17),
        recording_error: None,
        shape: None,
        learned: vec![],
        learned_profile: None,
        evaluation: None,
        board_moves: vec![],
    };
    let t = summary_text(&s);
    assert!(
        t.starts_with("stopped: reached --max-moves 300 (300 moves made)\n"),
        "{t}"
    );
    assert!(!t.contains("MaxMoves"), "{t}");
    assert!(t.contains("frames from frame 17 on were not saved"), "{t}");
}

fn replay_data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn replay_checks_a_recorded_game_and_prints_it_move_by_move() {
    let qt = replay_data("replay-2048-qt");
    let o = bot2048().arg("replay").arg(&qt).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    // the game's own score display reads 36 on the last frame (tests/play_replay.rs)
    assert!(
        text.contains("12 moves checked, score 36: every move fits the engine"),
        "{text}"
    );
    assert!(
        text.contains("move 1 down: +0 score 0, a new 2 at row 3 col 1 (frame 1)"),
        "{text}"
    );
    let o = bot2048()
        .args(["replay", "--json"])
        .arg(&qt)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 14, "start, 12 moves, end");
    assert_eq!(lines[0]["kind"], "start");
    let last = &lines[12];
    assert_eq!(
        (last["kind"].as_str(), last["move"].as_u64()),
        (Some("move"), Some(12))
    );
    // the last frame by eye: 8 4 0 0 / 8 2 0 0 / 4 2 0 0 / 4 2 0 0
    assert_eq!(
        last["board"],
        serde_json::json!([[8, 4, 0, 0], [8, 2, 0, 0], [4, 2, 0, 0], [4, 2, 0, 0]])
    );
    assert_eq!(lines[13]["kind"], "end");
    assert_eq!(
        (lines[13]["score"].as_u64(), lines[13]["fits"].as_bool()),
        (Some(36), Some(true))
    );

    // gnome-2048 spawns only 2s: its 5x5 game fits the twos-only rule too
    let o = bot2048()
        .args(["replay", "--spawn", "twos-only"])
        .arg(replay_data("replay-gnome-5x5"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("10 moves checked"));
}

#[test]
fn replay_names_the_move_and_the_cells_that_do_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(replay_data("replay-2048-qt").join("log.jsonl")).unwrap();
    let mut lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // frame 5 (after move 5) gets a 64 in its top-right cell
    let was = lines[5]["read"][0][3].as_u64().unwrap();
    let key = lines[4]["chosen"].as_str().unwrap().to_string();
    lines[5]["read"][0][3] = 64.into();
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(dir.path().join("log.jsonl"), text.join("\n")).unwrap();
    let o = bot2048().arg("replay").arg(dir.path()).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{out}");
    let why = if was == 0 {
        "row 1 col 4: a new 64, which the spawn rule (classic) never makes".to_string()
    } else {
        format!("row 1 col 4: the move gives {was}, the frame shows 64")
    };
    assert!(
        out.contains(&format!("MISFIT at move 5 ({key}), frame 5: {why}\n")),
        "{out}"
    );
    assert!(out.contains("4 moves checked"), "{out}");
    let o = bot2048()
        .args(["replay", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let misfit: serde_json::Value = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["kind"] == "misfit")
        .unwrap();
    assert_eq!(
        (misfit["move"].as_u64(), misfit["seq"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(misfit["why"], why.as_str());

    // not a recording: exit 1, named
    let empty = tempfile::tempdir().unwrap();
    let o = bot2048().arg("replay").arg(empty.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("log.jsonl"));
}

#[test]
fn replay_annotates_chosen_moves_and_frames_the_new_tile() {
    let qt = replay_data("replay-2048-qt");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ann");
    let run = |moves: &str| {
        bot2048()
            .arg("replay")
            .arg(&qt)
            .args(["--annotate", moves, "--out-dir"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run("0,5");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let yellow = |n: &str| {
        let img = image::open(out.join(n)).unwrap().to_rgba8();
        let frame = image::open(qt.join("frames/000000.png")).unwrap();
        assert_eq!(img.dimensions(), (frame.width(), frame.height()));
        img.pixels().filter(|p| p.0 == [255, 210, 0, 255]).count()
    };
    // asked for pictures, it prints the verdict alone, not the game
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.ends_with("every move fits the engine\n") && text.contains("moves checked"),
        "{text}"
    );
    assert_eq!(yellow("move-0000.png"), 0, "the start has no new tile");
    assert!(
        yellow("move-0005.png") > 100,
        "the new tile of move 5 is framed"
    );
    // never over an existing image without --force; a move the game does not have is refused
    assert_eq!(run("5").status.code(), Some(2));
    assert_eq!(run("13").status.code(), Some(2));
}

mod tables {
    use super::bot2048;
    use bot2048::solver::tables::build::build_table;
    use bot2048::solver::tables::{file, Formation, TableKey};

    #[test]
    fn status_of_an_empty_folder_says_what_to_run() {
        let dir = tempfile::tempdir().unwrap();
        let out = bot2048()
            .args(["tables", "status", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("no endgame tables"), "{text}");
        assert!(text.contains("bot2048 tables build"), "{text}");
    }

    #[test]
    fn a_corrupt_table_is_refused_by_name_by_status_and_by_sim() {
        let dir = tempfile::tempdir().unwrap();
        let key = TableKey::new(Formation::new([4, 4, 0, 0]).unwrap(), 4, 3).unwrap();
        let path = file::save(&build_table(&key, &|_| {}), 1, dir.path()).unwrap();
        // whole: status lists it, sim plays with it and says so
        let out = bot2048()
            .args(["tables", "status", "--verify", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("4-4.a4.g3.tbl"));
        let sim = bot2048()
            .args(["sim", "--games", "1", "--depth", "1", "--max-moves", "300"])
            .args(["--eval", "auto"])
            .env("BOT2048_TABLES", dir.path())
            .output()
            .unwrap();
        assert!(sim.status.success(), "{sim:?}");
        let err = String::from_utf8_lossy(&sim.stderr);
        assert!(
            err.contains("evaluation: heuristic with the endgame tables"),
            "{err}"
        );
        // damaged: refused, named, with what to run
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let out = bot2048()
            .args(["tables", "status", "--verify", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("corrupt") && text.contains("4-4.a4.g3.tbl"),
            "{text}"
        );
        // named or chosen by `auto` (the default), a damaged table is refused, never passed over
        for eval in ["tables", "auto"] {
            let sim = bot2048()
                .args(["sim", "--games", "1", "--depth", "1", "--eval", eval])
                .env("BOT2048_TABLES", dir.path())
                .output()
                .unwrap();
            assert_eq!(sim.status.code(), Some(1), "--eval {eval}: {sim:?}");
            let err = String::from_utf8_lossy(&sim.stderr);
            assert!(
                err.contains("4-4.a4.g3.tbl") && err.contains("tables build"),
                "--eval {eval}: {err}"
            );
        }
    }

    /// `tables build --set middle` (two short games) writes the middle-game tables' file;
    /// `status` lists it; `--eval auto` plays with it and says so; damaged, it is refused by
    /// name by both, with what to run.
    #[test]
    fn the_middle_game_tables_are_built_listed_used_by_auto_and_refused_when_damaged() {
        use bot2048::solver::tables::middle_file::{read_middle_header, MIDDLE_FILE};
        let dir = tempfile::tempdir().unwrap();
        let out = bot2048()
            .args(["tables", "build", "--set", "middle", "--games", "2"])
            .args(["--max-moves", "1000", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let path = dir.path().join(MIDDLE_FILE);
        let header = read_middle_header(&path).unwrap();
        assert_eq!(header.games, 2);
        assert!(header.positions > 0 && header.chunks > 0, "{header:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("built the middle-game tables"), "{text}");
        let status = bot2048()
            .args(["tables", "status", "--verify", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        let text = String::from_utf8_lossy(&status.stdout);
        let listed = format!("{} positions", header.positions);
        assert!(
            text.contains(MIDDLE_FILE) && text.contains(&listed),
            "{text}"
        );
        let sim = bot2048()
            .args(["sim", "--games", "1", "--depth", "1", "--max-moves", "300"])
            .args(["--eval", "auto"])
            .env("BOT2048_TABLES", dir.path())
            .output()
            .unwrap();
        assert!(sim.status.success(), "{sim:?}");
        let err = String::from_utf8_lossy(&sim.stderr);
        assert!(
            err.contains("evaluation: corner-middle: the middle-game tables")
                && err.contains("computed in 2 games"),
            "{err}"
        );
        // a second build keeps the file
        let again = bot2048()
            .args(["tables", "build", "--set", "middle", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(again.status.success(), "{again:?}");
        assert!(String::from_utf8_lossy(&again.stderr).contains("already built"));
        // damaged in its last chunk: refused by status and by sim, named, with what to run
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 10;
        bytes[at] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let status = bot2048()
            .args(["tables", "status", "--verify", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(status.status.code(), Some(1), "{status:?}");
        let text = String::from_utf8_lossy(&status.stdout);
        assert!(
            text.contains("corrupt") && text.contains(MIDDLE_FILE),
            "{text}"
        );
        let sim = bot2048()
            .args(["sim", "--games", "1", "--depth", "1", "--eval", "auto"])
            .env("BOT2048_TABLES", dir.path())
            .output()
            .unwrap();
        assert_eq!(sim.status.code(), Some(1), "{sim:?}");
        let err = String::from_utf8_lossy(&sim.stderr);
        assert!(
            err.contains(MIDDLE_FILE) && err.contains("tables build --set middle"),
            "{err}"
        );
    }

    #[test]
    fn without_tables_auto_is_the_heuristic_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let sim = bot2048()
            .args(["sim", "--games", "1", "--depth", "1", "--max-moves", "50"])
            .args(["--eval", "auto"])
            .env("BOT2048_TABLES", dir.path())
            .output()
            .unwrap();
        assert!(sim.status.success(), "{sim:?}");
        let err = String::from_utf8_lossy(&sim.stderr);
        assert!(
            err.contains("evaluation: heuristic (no tables built")
                && err.contains("tables build --set middle"),
            "{err}"
        );
        let named = bot2048()
            .args(["sim", "--games", "1", "--eval", "tables"])
            .env("BOT2048_TABLES", dir.path())
            .output()
            .unwrap();
        assert_eq!(named.status.code(), Some(1), "{named:?}");
        let err = String::from_utf8_lossy(&named.stderr);
        assert!(
            err.contains("no endgame tables in") && err.contains("tables build"),
            "{err}"
        );
    }
}
