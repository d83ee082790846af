//! The peer figures on the peer boards, printed as JSON lines (one command; `benches/peer.rs` is
//! the criterion version of the same measurements).
//!
//! ```text
//! cargo run --release --example peer                       # every figure, 3 rounds each
//! cargo run --release --example peer -- moves 5            # moves per CPU-second, 5 rounds
//! cargo run --release --example peer -- search 4 3 kept moves.txt
//!     # ms per decision at depth 4, 3 rounds, table kept across decisions, chosen moves to a file
//! ```
//!
//! Figures (one thread, this thread's CPU time; median, min and max over the rounds):
//! `moves_per_cpu_s` over all four directions of every board of `pool-games`
//! ([`Board::for_each_shifted`], as the search makes them; `shifted_per_cpu_s` with
//! [`Board::shifted`] once per direction, `apply_per_cpu_s` with [`Board::apply`] and the score); `ms_per_decision` at a depth (moves beyond the root
//! move) on `pool-search` (depths 1–4) or `pool-deep` (5–6), with the transposition table emptied
//! before each decision (`fresh`, the default, as the peer) or kept across a pool (`kept`).
#[path = "../benches/data/mod.rs"]
mod data;

use data::{
    apply_all, decide_all, moves_per_cpu_s, parse_pool, pool_for_depth, shift_all,
    shift_all_at_once, solver_at, TablePolicy,
};
use std::io::{ErrorKind, Write};
use std::time::Duration;

/// Prints one JSON line; a closed pipe (`peer moves | head -1`) ends the run quietly.
fn emit(line: &str) {
    if let Err(e) = writeln!(std::io::stdout().lock(), "{line}") {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("peer: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Ends the run with the usage line and exit status 2 (a bad command line).
fn usage(problem: &str) -> ! {
    eprintln!("{problem}: peer [moves ROUNDS | search DEPTH ROUNDS [fresh|kept] [MOVES_OUT]]");
    std::process::exit(2);
}

fn stats(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    };
    (median, s[0], s[n - 1])
}

fn moves(rounds: usize) {
    let boards = parse_pool(data::GAMES);
    for (figure, f) in [
        ("moves_per_cpu_s", shift_all_at_once as fn(&[_]) -> u64),
        ("shifted_per_cpu_s", shift_all),
        ("apply_per_cpu_s", apply_all),
    ] {
        // one unreported round first, as long as a reported one (the peer's driver does the same)
        moves_per_cpu_s(&boards, f, Duration::from_millis(500));
        let rates: Vec<f64> = (0..rounds)
            .map(|_| moves_per_cpu_s(&boards, f, Duration::from_millis(500)))
            .collect();
        let (median, min, max) = stats(&rates);
        emit(&format!(
            "{{\"side\":\"bot2048\",\"figure\":\"{figure}\",\"pool\":\"pool-games\",\"boards\":{},\
             \"median\":{median:.0},\"min\":{min:.0},\"max\":{max:.0}}}",
            boards.len()
        ));
    }
}

fn search(depth: u32, rounds: usize, policy: TablePolicy, moves_out: Option<&str>) {
    let (pool, text) = pool_for_depth(depth);
    let boards = parse_pool(text);
    let mut solver = solver_at(depth);
    // An untimed pass first: lazy tables (the heuristic's) are built, caches are warm.
    decide_all(&mut solver, &boards, depth, policy);
    let mut ms = Vec::new();
    let mut last = (Vec::new(), 0);
    for _ in 0..rounds {
        let (spent, chosen, nodes) = decide_all(&mut solver, &boards, depth, policy);
        ms.push(spent.as_secs_f64() * 1e3 / boards.len() as f64);
        last = (chosen, nodes);
    }
    if let Some(path) = moves_out {
        let text: String = last.0.iter().map(|m| format!("{m}\n")).collect();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("peer: cannot write the chosen moves to {path}: {e}");
            std::process::exit(1);
        }
    }
    let (median, min, max) = stats(&ms);
    emit(&format!(
        "{{\"side\":\"bot2048\",\"figure\":\"ms_per_decision\",\"table\":\"{}\",\"pool\":\"{pool}\",\
         \"boards\":{},\"depth\":{depth},\"median\":{median:.6},\"min\":{min:.6},\"max\":{max:.6},\
         \"nodes\":{}}}",
        policy.name(),
        boards.len(),
        last.1
    ));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let num = |i: usize, default: usize| {
        arg(i).map_or(default, |s| {
            s.parse()
                .unwrap_or_else(|_| usage(&format!("{s:?} is not a whole number")))
        })
    };
    let policy = |i: usize| match arg(i) {
        None | Some("fresh") => TablePolicy::Fresh,
        Some("kept") => TablePolicy::Kept,
        Some(other) => usage(&format!("table policy is fresh or kept, not {other:?}")),
    };
    match arg(0) {
        None => {
            moves(3);
            for depth in 1..=6 {
                search(depth, 3, TablePolicy::Fresh, None);
            }
            for depth in 3..=6 {
                search(depth, 3, TablePolicy::Kept, None);
            }
        }
        Some("moves") => moves(num(1, 3)),
        Some("search") => search(num(1, 3) as u32, num(2, 3), policy(3), arg(4)),
        Some(other) => usage(&format!("unknown figure {other:?}")),
    }
}
