//! Tests: engine, through the public API (hand-worked cases, statistics of the spawn, properties).
use bot2048::engine::tables::slide_row_slow;
use bot2048::engine::{Board, Game, GameState, Move, SpawnRule};
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
fn left_reference(b: Board) -> (Board, u64) {
    let mut g = b.to_exponents();
    let mut score = 0;
    for row in &mut g {
        let (moved, s) = slide_row_slow(*row);
        *row = moved;
        score += u64::from(s);
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

/// Plays `moves` moves of `game` (the first legal move of a fixed cycle), recording each board,
/// score and move count.
fn cycle_moves(game: &mut Game, moves: usize) -> Vec<(Board, u64, u32)> {
    let mut seen = Vec::new();
    for i in 0..moves {
        let legal = (0..4)
            .map(|k| Move::ALL[(i + k) % 4])
            .find(|&m| game.board().apply(m).is_some());
        let Some(m) = legal else { break };
        game.play(m);
        seen.push((game.board(), game.score(), game.moves()));
    }
    seen
}

#[test]
fn a_resumed_game_meets_the_spawns_the_original_met() {
    let mut original = Game::new(42);
    cycle_moves(&mut original, 60);
    let state = original.state();
    assert_eq!(
        (state.seed, state.moves, state.board),
        (42, 60, original.board())
    );
    assert_eq!(state.rule, SpawnRule::Classic);
    let mut resumed = Game::resume(&state);
    assert_eq!(
        (resumed.board(), resumed.score(), resumed.moves()),
        (original.board(), original.score(), 60)
    );
    let ahead = cycle_moves(&mut original, 150);
    assert!(
        ahead.len() > 100,
        "the test game ended after {} moves",
        ahead.len()
    );
    assert_eq!(cycle_moves(&mut resumed, 150), ahead);
    // the spawn position is what carries the spawns: from the seed's start they differ
    let mut from_start = Game::resume(&GameState {
        spawn_position: 0,
        ..state
    });
    assert_ne!(cycle_moves(&mut from_start, 150), ahead);
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
    use bot2048::engine::{AnyBoard, Board, Game, Move, Position, Shape};
    use bot2048::solver::registry::{self, SOLVERS};
    use bot2048::solver::{Budget, SolverConfig, SolverError};

    /// A small budget for whole test games: depth 1 for the searches, one iteration of 20 ants
    /// for aco, and the article's 20 rollouts a move for montecarlo (one rollout is too noisy).
    fn quick(name: &str) -> Budget {
        Budget::depth(if name == "montecarlo" { 20 } else { 1 })
    }

    #[test]
    fn every_registered_solver_plays_legal_moves_to_the_end() {
        for info in SOLVERS {
            let mut solver = registry::build(info.name, &SolverConfig::new(Shape::FOUR)).unwrap();
            assert_eq!(solver.name(), info.name);
            let mut game = Game::new(3);
            let budget = quick(info.name);
            while let Some(m) = solver
                .decide(&AnyBoard::Four(game.board()), &budget)
                .unwrap()
                .best
            {
                assert!(
                    game.play(m).is_some(),
                    "{} chose an illegal move",
                    info.name
                );
            }
            assert!(game.is_over());
            // All reach 256 at least: a random player rarely does, these always do.
            assert!(
                game.board().max_value() >= 256,
                "{}: {}",
                info.name,
                game.board()
            );
        }
    }

    #[test]
    fn every_registered_solver_plays_a_3x5_game_to_the_end() {
        let shape = Shape::new(3, 5).unwrap();
        for info in SOLVERS {
            let made = registry::build(info.name, &SolverConfig::new(shape));
            if info.name == "ntuple" {
                // the network is trained on 4x4 only, and says so
                assert!(matches!(made, Err(SolverError::Unsupported { .. })));
                continue;
            }
            let mut solver = made.unwrap();
            let mut game = Game::with_shape(shape, 4, Default::default());
            let budget = quick(info.name);
            while let Some(m) = solver.decide(&game.board(), &budget).unwrap().best {
                assert!(
                    game.play(m).is_some(),
                    "{} chose an illegal move",
                    info.name
                );
            }
            assert!(game.is_over());
            assert!(
                game.board().max_value() >= 64,
                "{}: {}",
                info.name,
                game.board()
            );
        }
    }

    #[test]
    fn unknown_solver_is_a_typed_error() {
        match registry::build("random", &SolverConfig::new(Shape::FOUR)) {
            Err(SolverError::UnknownSolver { name, known }) => {
                assert_eq!(name, "random");
                assert!(known.iter().any(|k| k == "expectimax"));
            }
            Ok(_) => panic!("\"random\" is not a solver"),
            Err(e) => panic!("wrong error {e}"),
        }
    }

    #[test]
    fn a_solver_refuses_a_board_of_another_shape() {
        let mut solver = registry::build("expectimax", &SolverConfig::new(Shape::FOUR)).unwrap();
        let three = AnyBoard::empty(Shape::new(3, 3).unwrap());
        assert!(matches!(
            solver.decide(&three, &Budget::depth(1)),
            Err(SolverError::WrongShape { .. })
        ));
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
        let mut solver = registry::build("expectimax", &SolverConfig::new(Shape::FOUR)).unwrap();
        let d = solver
            .decide(&AnyBoard::Four(b), &Budget::depth(2))
            .unwrap();
        assert!(matches!(d.best, Some(Move::Left) | Some(Move::Right)));
        assert_eq!(d.values[Move::Up.index()], None);
        assert_eq!(d.values[Move::Down.index()], None);
        assert!(d.nodes > 0);
        // no empty cell: two moves deeper than asked (expectimax's extend-below, 4 by default,
        // and extend-twice-below, 2 by default)
        assert_eq!(d.work, 4);
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
    // the classic rule puts a 4 on about one spawn in ten (1,000 spawns: 100 expected,
    // sd 9.5; the bound is 5 sd) and draws the same on every board type
    let mut a = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let mut fours = 0;
    for _ in 0..1000 {
        fours += usize::from(
            Board::EMPTY
                .spawn_by(&mut a, SpawnRule::Classic)
                .max_value()
                == 4,
        );
    }
    assert!((53..=147).contains(&fours), "{fours} fours in 1000 spawns");
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

mod shapes {
    use bot2048::engine::{AnyBoard, Board, Game, GridBoard, Move, Position, Shape, SpawnRule};
    use proptest::prelude::*;

    fn any_4x4() -> impl Strategy<Value = Board> {
        // exponents 0..=17 with most cells small, as in real games, plus some big tiles
        prop::collection::vec(prop_oneof![8 => 0u8..=6, 3 => 0u8..=15, 1 => 14u8..=17], 16)
            .prop_map(|e| {
                Board::from_exponents(std::array::from_fn(|r| {
                    std::array::from_fn(|c| e[4 * r + c])
                }))
                .unwrap()
            })
    }

    fn any_grid() -> impl Strategy<Value = GridBoard> {
        (2usize..=9, 2usize..=9).prop_flat_map(|(r, c)| {
            prop::collection::vec(
                prop_oneof![3 => Just(0u8), 4 => 1u8..=5, 1 => 1u8..=12],
                r * c,
            )
            .prop_map(move |e| {
                let shape = Shape::new(r, c).unwrap();
                let e: Vec<u8> = e.iter().map(|&x| x.min(shape.max_exponent())).collect();
                GridBoard::from_exponents(shape, &e).unwrap()
            })
        })
    }

    proptest! {
        #[test]
        fn the_grid_board_agrees_with_the_bitboard_on_4x4(b in any_4x4()) {
            let g = AnyBoard::Four(b).to_grid();
            for m in Move::ALL {
                let bits = b.apply(m);
                let grid = Position::apply(g, m);
                prop_assert_eq!(bits.is_some(), grid.is_some(), "{} legal", m);
                if let (Some((ab, sb)), Some((ag, sg))) = (bits, grid) {
                    prop_assert_eq!(AnyBoard::from_grid(ag), AnyBoard::Four(ab), "{}", m);
                    prop_assert_eq!(sb, sg, "{} score", m);
                }
            }
            prop_assert_eq!(b.afterstates().map(|a| a.map(AnyBoard::Four)),
                Position::afterstates(g).map(|a| a.map(AnyBoard::from_grid)));
            prop_assert_eq!(b.count_empty(), g.count_empty());
            prop_assert_eq!(Position::empties(b).collect::<Vec<_>>(), g.empties().collect::<Vec<_>>());
            prop_assert_eq!(b.is_game_over(), g.is_game_over());
            prop_assert_eq!(b.max_exponent(), Position::max_exponent(g));
        }

        #[test]
        fn a_grid_move_keeps_the_tile_sum_and_mirrors(g in any_grid()) {
            let any = AnyBoard::from_grid(g);
            for m in Move::ALL {
                if let Some((after, score)) = any.apply(m) {
                    prop_assert_eq!(after.tile_sum(), any.tile_sum());
                    prop_assert!(after != any);
                    prop_assert!(score % 4 == 0);
                }
            }
            // left on the board equals right on its mirror image, mirrored back
            let s = g.shape();
            let mirror = |b: &GridBoard| {
                let e = b.exponents();
                let m: Vec<u8> = (0..s.cells())
                    .map(|i| e[(i / s.cols()) * s.cols() + s.cols() - 1 - i % s.cols()])
                    .collect();
                GridBoard::from_exponents(s, &m).unwrap()
            };
            let left = Position::apply(g, Move::Left);
            let right = Position::apply(mirror(&g), Move::Right);
            prop_assert_eq!(left.map(|(b, sc)| (mirror(&b), sc)), right);
        }

        #[test]
        fn the_text_form_round_trips(g in any_grid()) {
            let any = AnyBoard::from_grid(g);
            prop_assert_eq!(AnyBoard::from_text(&any.to_text()).unwrap(), any);
        }
    }

    #[test]
    fn a_game_of_any_shape_replays_and_4x4_spawns_as_the_bitboard() {
        let four = Game::with_rule(21, SpawnRule::Classic);
        let any = Game::with_shape(Shape::FOUR, 21, SpawnRule::Classic);
        assert_eq!(any.board(), AnyBoard::Four(four.board()));
        let shape = Shape::new(3, 5).unwrap();
        let mut a = Game::with_shape(shape, 8, SpawnRule::Classic);
        let mut b = Game::with_shape(shape, 8, SpawnRule::Classic);
        assert_eq!(a.board().shape(), shape);
        assert_eq!(15 - a.board().count_empty(), 2, "two tiles at the start");
        for _ in 0..40 {
            let Some(m) = a.board().legal_moves().next() else {
                break;
            };
            assert_eq!(a.play(m), b.play(m));
            assert_eq!(a.board(), b.board());
        }
    }

    #[test]
    fn making_the_goal_of_1024_wins_the_game() {
        let shape = Shape::new(3, 3).unwrap();
        let start = AnyBoard::from_values(shape, &[512, 512, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        let mut game = Game::from_empty(start, 2, SpawnRule::Classic)
            .with_goal(1024)
            .unwrap();
        assert!(!game.is_won());
        assert_eq!(game.play(Move::Left), Some(1024));
        assert!(game.is_won());
        assert_eq!(game.board().max_value(), 1024);
        // a goal must be a power of two the board can hold
        let g = Game::with_shape(shape, 1, SpawnRule::Classic);
        assert!(g.clone().with_goal(1000).is_err());
        assert!(g.clone().with_goal(2048).is_err(), "3x3 holds at most 1024");
        assert!(g.with_goal(1024).is_ok());
    }

    #[test]
    fn shapes_parse_and_refuse() {
        assert_eq!("3x5".parse::<Shape>().unwrap(), Shape::new(3, 5).unwrap());
        assert_eq!("5".parse::<Shape>().unwrap(), Shape::new(5, 5).unwrap());
        assert_eq!("4X4".parse::<Shape>().unwrap(), Shape::FOUR);
        for bad in ["10x10", "1x4", "0", "axb", "4x", ""] {
            assert!(bad.parse::<Shape>().is_err(), "{bad}");
        }
        assert_eq!(Shape::new(3, 3).unwrap().max_exponent(), 10);
        assert_eq!(Shape::FOUR.max_exponent(), 17);
    }
}
