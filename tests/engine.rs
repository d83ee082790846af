//! Tests: engine, through the public API (hand-worked cases, statistics of the spawn, properties).
use bot2048::engine::tables::slide_row_slow;
use bot2048::engine::{Board, Game, Move};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn board(grid: [[u32; 4]; 4]) -> Board {
    Board::from_values(grid).unwrap()
}

fn mirror(b: Board) -> Board {
    let mut g = b.to_exponents();
    for row in &mut g {
        row.reverse();
    }
    Board::from_exponents(g).unwrap()
}

fn transposed(b: Board) -> Board {
    let g = b.to_exponents();
    let mut t = [[0u8; 4]; 4];
    for (r, row) in g.iter().enumerate() {
        for (c, &e) in row.iter().enumerate() {
            t[c][r] = e;
        }
    }
    Board::from_exponents(t).unwrap()
}

/// Left move computed cell by cell from the slow reference.
fn left_reference(b: Board) -> (Board, u32) {
    let mut g = b.to_exponents();
    let mut score = 0;
    for row in &mut g {
        let (moved, s) = slide_row_slow(*row);
        *row = moved;
        score += s;
    }
    (Board::from_exponents(g).unwrap(), score)
}

#[test]
fn issue_merge_rules() {
    // From the issue: each tile merges at most once per move.
    let rows = [
        ([2, 2, 4, 4], [4, 8, 0, 0], 12),
        ([2, 2, 2, 2], [4, 4, 0, 0], 8),
        ([4, 2, 2, 0], [4, 4, 0, 0], 4),
        ([2, 0, 2, 4], [4, 4, 0, 0], 4),
    ];
    for (row, want, score) in rows {
        let b = board([[0; 4], row, [0; 4], [0; 4]]);
        let (after, s) = b.apply(Move::Left).unwrap();
        assert_eq!(after, board([[0; 4], want, [0; 4], [0; 4]]), "{row:?}");
        assert_eq!(s, score, "{row:?}");
    }
}

#[test]
fn score_sums_the_tiles_made_across_rows() {
    let b = board([
        [2, 2, 0, 0],
        [8, 8, 8, 0],
        [1024, 1024, 0, 0],
        [2, 4, 8, 16],
    ]);
    let (after, s) = b.apply(Move::Right).unwrap();
    assert_eq!(
        after,
        board([[0, 0, 0, 4], [0, 0, 8, 16], [0, 0, 0, 2048], [2, 4, 8, 16]])
    );
    assert_eq!(s, 4 + 16 + 2048);
}

#[test]
fn largest_tiles_merge_exactly() {
    let b = board([[65536, 0, 65536, 0], [0; 4], [0; 4], [0; 4]]);
    let (after, s) = b.apply(Move::Left).unwrap();
    assert_eq!(after.to_values()[0], [131072, 0, 0, 0]);
    assert_eq!(s, 131072);
    assert_eq!(after.max_value(), 131072);
    let b = board([
        [0, 0, 0, 0],
        [0, 0, 0, 32768],
        [0, 0, 0, 0],
        [0, 0, 0, 32768],
    ]);
    let (after, s) = b.apply(Move::Down).unwrap();
    assert_eq!(after.to_values()[3], [0, 0, 0, 65536]);
    assert_eq!(s, 65536);
}

#[test]
fn game_over_needs_no_empty_cell_and_no_equal_neighbours() {
    let over = board([[2, 4, 8, 16], [16, 8, 4, 2], [2, 4, 8, 16], [16, 8, 4, 2]]);
    assert!(over.is_game_over());
    assert_eq!(over.count_empty(), 0);
    let not_over = board([[2, 4, 8, 16], [16, 8, 4, 2], [2, 4, 8, 16], [16, 8, 4, 16]]);
    assert!(!not_over.is_game_over());
    assert_eq!(
        not_over.legal_moves().collect::<Vec<_>>(),
        vec![Move::Up, Move::Down]
    );
}

/// 100,000 spawns on the empty board: the share of 4s is 0.1 and each cell gets 1/16, each within
/// 5 standard deviations of a binomial (4s: sd = sqrt(n·0.1·0.9) ≈ 94.9; a cell: sd ≈ 76.5).
#[test]
fn spawn_distribution_within_five_sigma() {
    let n = 100_000u32;
    let mut rng = ChaCha8Rng::seed_from_u64(20_48);
    let mut fours = 0u32;
    let mut per_cell = [0u32; 16];
    for _ in 0..n {
        let b = Board::EMPTY.spawn(&mut rng);
        assert_eq!(b.count_empty(), 15);
        let (i, e) = (0..16)
            .map(|i| (i, b.exponent(i / 4, i % 4)))
            .find(|&(_, e)| e != 0)
            .unwrap();
        assert!(e == 1 || e == 2);
        fours += (e == 2) as u32;
        per_cell[i] += 1;
    }
    let sd4 = (n as f64 * 0.1 * 0.9).sqrt();
    assert!(
        (fours as f64 - n as f64 * 0.1).abs() < 5.0 * sd4,
        "fours {fours}"
    );
    let p = 1.0 / 16.0;
    let sdc = (n as f64 * p * (1.0 - p)).sqrt();
    for (i, &k) in per_cell.iter().enumerate() {
        assert!((k as f64 - n as f64 * p).abs() < 5.0 * sdc, "cell {i}: {k}");
    }
}

#[test]
fn spawn_fills_only_empty_cells() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let b = board([[2, 4, 8, 16], [16, 8, 4, 2], [2, 4, 0, 16], [16, 8, 4, 2]]);
    for _ in 0..100 {
        let s = b.spawn(&mut rng);
        assert_eq!(s.count_empty(), 0);
        assert!(s.exponent(2, 2) == 1 || s.exponent(2, 2) == 2);
    }
    let full = board([[2, 4, 8, 16], [16, 8, 4, 2], [2, 4, 8, 16], [16, 8, 4, 2]]);
    assert_eq!(full.spawn(&mut rng), full);
    let start = Board::start(&mut rng);
    assert_eq!(start.count_empty(), 14);
}

#[test]
fn seeded_games_replay_exactly() {
    let play = |seed| {
        let mut g = Game::new(seed);
        let mut boards = vec![g.board()];
        for i in 0..200 {
            let m = Move::ALL[i % 4];
            if g.play(m).is_none() && g.is_over() {
                break;
            }
            boards.push(g.board());
        }
        (boards, g.score(), g.moves())
    };
    assert_eq!(play(42), play(42));
    assert_ne!(play(42).0, play(43).0);
}

#[test]
fn game_play_rejects_illegal_moves_without_spawning() {
    let mut g = Game::new(1);
    let before = g.board();
    let illegal = Move::ALL.into_iter().find(|&m| before.apply(m).is_none());
    if let Some(m) = illegal {
        assert_eq!(g.play(m), None);
        assert_eq!(g.board(), before);
        assert_eq!(g.moves(), 0);
    }
    let legal = before.legal_moves().next().unwrap();
    assert!(g.play(legal).is_some());
    assert_eq!(g.moves(), 1);
}

/// Boards whose tiles are 0..=17 exponents; mostly small tiles, sometimes the large ones.
fn any_board() -> impl Strategy<Value = Board> {
    let cell = prop_oneof![
        6 => 0u8..=3,
        3 => 0u8..=11,
        1 => 12u8..=17,
    ];
    proptest::array::uniform16(cell).prop_map(|cells| {
        let mut g = [[0u8; 4]; 4];
        for (i, e) in cells.into_iter().enumerate() {
            g[i / 4][i % 4] = e;
        }
        Board::from_exponents(g).unwrap()
    })
}

proptest! {
    #[test]
    fn a_move_keeps_the_tile_sum(b in any_board()) {
        for m in Move::ALL {
            if let Some((after, _)) = b.apply(m) {
                prop_assert_eq!(after.tile_sum(), b.tile_sum());
            }
        }
    }

    #[test]
    fn a_spawn_adds_two_or_four(b in any_board(), seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = b.spawn(&mut rng);
        let added = s.tile_sum() - b.tile_sum();
        if b.count_empty() == 0 {
            prop_assert_eq!(added, 0);
        } else {
            prop_assert!(added == 2 || added == 4);
        }
    }

    #[test]
    fn left_matches_the_slow_reference(b in any_board()) {
        let (want, score) = left_reference(b);
        match b.apply(Move::Left) {
            Some((after, s)) => {
                prop_assert_eq!(after, want);
                prop_assert_eq!(s, score);
            }
            None => prop_assert_eq!(want, b),
        }
    }

    #[test]
    fn left_equals_mirrored_right(b in any_board()) {
        let left = b.apply(Move::Left);
        let right = mirror(b).apply(Move::Right).map(|(a, s)| (mirror(a), s));
        prop_assert_eq!(left, right);
    }

    #[test]
    fn up_equals_transposed_left(b in any_board()) {
        let up = b.apply(Move::Up);
        let left = transposed(b).apply(Move::Left).map(|(a, s)| (transposed(a), s));
        prop_assert_eq!(up, left);
        let down = b.apply(Move::Down);
        let right = transposed(b).apply(Move::Right).map(|(a, s)| (transposed(a), s));
        prop_assert_eq!(down, right);
    }

    #[test]
    fn a_move_that_changes_nothing_is_illegal(b in any_board()) {
        for m in Move::ALL {
            match b.apply(m) {
                Some((after, _)) => prop_assert_ne!(after, b),
                None => {
                    // The reference agrees the board is unchanged.
                    let t = match m {
                        Move::Left => left_reference(b).0,
                        Move::Right => mirror(left_reference(mirror(b)).0),
                        Move::Up => transposed(left_reference(transposed(b)).0),
                        Move::Down => transposed(mirror(left_reference(mirror(transposed(b))).0)),
                    };
                    prop_assert_eq!(t, b);
                }
            }
            prop_assert_eq!(b.shifted(m), b.apply(m).map(|(a, _)| a));
        }
        prop_assert_eq!(b.is_game_over(), b.legal_moves().next().is_none());
    }

    #[test]
    fn text_forms_round_trip(b in any_board()) {
        prop_assert_eq!(Board::from_hex(&b.to_hex()).unwrap(), b);
        prop_assert_eq!(Board::from_values(b.to_values()).unwrap(), b);
        prop_assert_eq!(Board::from_exponents(b.to_exponents()).unwrap(), b);
    }
}

mod solvers {
    use bot2048::engine::{Board, Game, Move};
    use bot2048::solver::{by_name, SolverError, SolverOptions, SOLVER_NAMES};

    #[test]
    fn every_named_solver_plays_legal_moves_to_the_end() {
        for &name in SOLVER_NAMES {
            let opts = SolverOptions {
                depth: Some(1),
                time_ms: None,
                ..SolverOptions::default()
            };
            let mut solver = by_name(name, &opts).unwrap();
            assert_eq!(solver.name(), name);
            let mut game = Game::new(3);
            while let Some(m) = solver.decide(game.board()).best {
                assert!(game.play(m).is_some(), "{name} chose an illegal move");
            }
            assert!(game.is_over());
            // Both reach 256 at least: a random player rarely does, these always do.
            assert!(game.board().max_value() >= 256, "{name}: {}", game.board());
        }
    }

    #[test]
    fn unknown_solver_is_a_typed_error() {
        match by_name("random", &SolverOptions::default()) {
            Err(SolverError::UnknownSolver { name, known }) => {
                assert_eq!(name, "random");
                assert!(known.iter().any(|k| k == "expectimax"));
            }
            Ok(_) => panic!("\"random\" is not a solver"),
        }
    }

    #[test]
    fn expectimax_takes_the_merge_that_saves_a_full_board() {
        // Full board, one legal pair (the two 2s in the bottom row): only left/right are legal.
        let b = Board::from_values([
            [4, 8, 16, 32],
            [64, 128, 256, 512],
            [4, 8, 16, 32],
            [64, 128, 2, 2],
        ])
        .unwrap();
        let mut solver = by_name(
            "expectimax",
            &SolverOptions {
                depth: Some(2),
                time_ms: None,
                ..SolverOptions::default()
            },
        )
        .unwrap();
        let d = solver.decide(b);
        assert!(matches!(d.best, Some(Move::Left) | Some(Move::Right)));
        assert_eq!(d.values[Move::Up.index()], None);
        assert_eq!(d.values[Move::Down.index()], None);
        assert!(d.nodes > 0);
        assert_eq!(d.depth, 2);
    }

    #[test]
    fn a_time_budget_gives_a_complete_depth() {
        let b =
            Board::from_values([[2, 4, 8, 16], [32, 64, 128, 256], [0, 2, 0, 4], [0; 4]]).unwrap();
        let mut solver = by_name(
            "expectimax",
            &SolverOptions {
                depth: None,
                time_ms: Some(30),
                ..SolverOptions::default()
            },
        )
        .unwrap();
        let d = solver.decide(b);
        assert!(d.best.is_some());
        assert!(d.depth >= 1, "depth {}", d.depth);
    }
}

#[test]
fn twos_only_spawns_only_twos_and_classic_is_the_old_spawn() {
    use bot2048::engine::SpawnRule;
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let mut twos = 0;
    for _ in 0..20_000 {
        let b = Board::EMPTY.spawn_by(&mut rng, SpawnRule::TwosOnly);
        assert_eq!(b.count_empty(), 15);
        twos += usize::from(b.max_value() == 2);
    }
    assert_eq!(twos, 20_000);
    // the classic rule draws exactly as `spawn` always did: same seed, same boards
    let mut a = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let mut b = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let (mut x, mut y) = (Board::EMPTY, Board::EMPTY);
    for _ in 0..12 {
        x = x.spawn(&mut a);
        y = y.spawn_by(&mut b, SpawnRule::Classic);
        assert_eq!(x, y);
    }
    // a whole game under twos-only never shows a 4 that a merge did not make: its tile sum is
    // always even in 2s, and the start board holds two 2s
    let mut g = bot2048::engine::Game::with_rule(11, SpawnRule::TwosOnly);
    assert_eq!(g.board().tile_sum(), 4);
    assert_eq!(g.board().max_value(), 2);
    for _ in 0..300 {
        let Some(m) = g.board().legal_moves().next() else {
            break;
        };
        let before = g.board().tile_sum();
        g.play(m).unwrap();
        assert_eq!(g.board().tile_sum(), before + 2, "each spawn adds a 2");
    }
    assert_eq!("twos-only".parse::<SpawnRule>(), Ok(SpawnRule::TwosOnly));
    assert_eq!("classic".parse::<SpawnRule>(), Ok(SpawnRule::Classic));
    assert!("fours".parse::<SpawnRule>().is_err());
}
