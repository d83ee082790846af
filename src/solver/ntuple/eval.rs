//! The network as a search evaluation ([`NTupleEval`]), the `ntuple` solver (greedy over the
//! network, [`INFO`]), and the one loaded copy of each network file a process shares
//! ([`load_shared`]).
//!
//! A network's value of an afterstate is the points still to come from it; a search compares
//! afterstates reached by different moves, whose merges already scored different points. So the
//! evaluation adds the points the afterstate's tiles took to build ([`built_points`]): a tile of
//! exponent `k` took `(k − 1) · 2^k` points to merge from 2-tiles, and a move's merge score is
//! exactly the change of that sum (two `k` tiles, `2 (k − 1) 2^k`, become one `k + 1` tile,
//! `k · 2^(k+1)`: the difference is `2^(k+1)`, the merge score). With it, expectimax over
//! [`NTupleEval`] maximises score so far + points to come, as TD-trained players do (Szubert &
//! Jaśkowski 2014, "Temporal difference learning of n-tuple networks for the game 2048"; the
//! expectimax over a network of Yeh et al. 2016 and Guei et al. 2022). The one bias: a spawned
//! 4 counts 4 points (its `(2 − 1) · 4`) it did not score, the same for every move to within
//! 0.4 points a spawn.
use super::{default_path, LoadError, Network};
use crate::engine::{Board, Shape};
use crate::solver::config::{OptionInfo, OptionValues, SolverConfig, SolverInfo};
use crate::solver::evaluation::{NamedEvaluation, Refused};
use crate::solver::greedy::Greedy;
use crate::solver::{Evaluation, Evaluator, Solver, SolverError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The registry entry of the `ntuple` solver.
pub const INFO: SolverInfo = SolverInfo {
    name: "ntuple",
    summary: "one ply over the n-tuple network: the move of highest merge score + network value of its afterstate (4x4)",
    source: "Szubert & Jaśkowski 2014, TD-trained n-tuple networks; Yeh et al. 2016 (4x6 tuples)",
    work: None,
    uses_evaluation: false,
    options: &[OptionInfo {
        key: "network",
        default: "",
        help: "the weights file (empty = --eval ntuple:FILE's, else the bot's own: networks/ntuple-4x6.bin or $BOT2048_NETWORK)",
    }],
    build: build_ntuple,
};

fn build_ntuple(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    let v = OptionValues::new(&INFO, &config.options)?;
    let file: String = v.get("network")?;
    let net = match (&config.evaluation, file.as_str()) {
        (Evaluation::NTuple(eval), "") => eval.network().clone(),
        (_, "") => load_shared(&default_path())?,
        (_, f) => load_shared(Path::new(f))?,
    };
    if !config.shape.is_four() {
        return Err(unsupported(INFO.name, config.shape));
    }
    Ok(Box::new(
        Greedy::<Board, _>::new(Shape::FOUR, NTupleEval::new(net)).named(INFO.name),
    ))
}

/// The refusal of a network on a board that is not 4×4.
fn unsupported(solver: &str, shape: Shape) -> SolverError {
    SolverError::Unsupported {
        solver: solver.to_string(),
        shape,
        why: "the n-tuple network is trained on 4x4 boards only (another size needs its own \
              tuples and training)"
            .to_string(),
    }
}

/// The points a board's tiles took to build from 2-tiles: `Σ (k − 1) · 2^k` over its tiles of
/// exponent `k` (a 2 counts 0, a 4 counts 4, a 2048 counts 20,480). A move's merge score is the
/// change of this sum (module doc).
#[inline]
pub fn built_points(board: Board) -> f32 {
    if board.has_big_tile() {
        let points = (0..16).map(|i| match board.exponent(i / 4, i % 4) {
            0 | 1 => 0,
            k => u64::from(k - 1) << k,
        });
        return points.sum::<u64>() as f32;
    }
    let mut x = board.raw();
    let mut sum = 0u64;
    while x != 0 {
        let k = (x & 0xf) as u32;
        if k > 1 {
            sum += u64::from(k - 1) << k;
        }
        x >>= 4;
    }
    sum as f32
}

/// An n-tuple network as an [`Evaluator`] of 4×4 afterstates: the network's value (points to
/// come) + [`built_points`] (points scored so far, up to a constant per decision), in points.
#[derive(Clone, Debug)]
pub struct NTupleEval {
    net: Arc<Network>,
}

impl NTupleEval {
    /// The evaluation by `net`.
    pub fn new(net: Arc<Network>) -> NTupleEval {
        NTupleEval { net }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }
}

impl Evaluator<Board> for NTupleEval {
    #[inline]
    fn evaluate(&self, afterstate: Board) -> f32 {
        self.net.value(afterstate) + built_points(afterstate)
    }
}

impl NamedEvaluation for NTupleEval {
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "ntuple",
        "the n-tuple network's points to come + points scored (4x4); ntuple:FILE names a weights file, else networks/ntuple-4x6.bin or $BOT2048_NETWORK",
    )];
    type OnFour = NTupleEval;
    type OnGrid = Refused;

    /// `ntuple` loads the bot's own network ([`default_path`]), `ntuple:FILE` the file FILE,
    /// each once per process ([`load_shared`]).
    fn parse(name: &str) -> Option<Result<NTupleEval, SolverError>> {
        let path = match name.strip_prefix("ntuple") {
            Some("") => default_path(),
            Some(file) => PathBuf::from(file.strip_prefix(':')?),
            None => return None,
        };
        Some(load_shared(&path).map(NTupleEval::new))
    }

    fn on_four(&self) -> NTupleEval {
        self.clone()
    }

    fn on_grid(&self, solver: &str, shape: Shape) -> Result<Refused, SolverError> {
        Err(unsupported(solver, shape))
    }
}

/// Networks loaded by [`load_shared`], by path: a network is 256 MiB, so the solvers of one
/// process (the games of a `sim`, the entrants of `sim --compare`, the solver `play` builds for
/// each board) share one copy, kept until the process ends.
static LOADED: Mutex<Vec<(PathBuf, Arc<Network>)>> = Mutex::new(Vec::new());

/// The network in the weights file `path`, loaded once per process (a later change to the file
/// is not seen by this process).
///
/// # Errors
/// [`SolverError::BadNetwork`] naming the file: what [`Network::load`] refuses.
pub fn load_shared(path: &Path) -> Result<Arc<Network>, SolverError> {
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, net)) = loaded.iter().find(|(p, _)| *p == key) {
        return Ok(net.clone());
    }
    let net = Arc::new(Network::load(path).map_err(|e| bad_network(path, &e))?);
    loaded.push((key, net.clone()));
    Ok(net)
}

fn bad_network(path: &Path, e: &LoadError) -> SolverError {
    let mut message = e.to_string();
    if matches!(e, LoadError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound) {
        message.push_str(
            " (make one with `bot2048 train`, or name one with --eval ntuple:FILE or $BOT2048_NETWORK)",
        );
    }
    SolverError::BadNetwork {
        path: path.display().to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Move;
    use crate::solver::registry;
    use crate::solver::Budget;
    use crate::solver::SolverConfig;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn built_points_of_hand_counted_boards() {
        // a 2 took nothing, a 4 one merge of 4 points, an 8: two 4s (8) + its merge (8) = 16,
        // a 2048: 10 * 2048 = 20,480
        let b = Board::from_values([[2, 4, 8, 2048], [0; 4], [0; 4], [0; 4]]).unwrap();
        assert_eq!(built_points(b), (4 + 16 + 20_480) as f32);
        assert_eq!(built_points(Board::EMPTY), 0.0);
        // past the nibbles' 32768: 65536 took 15 * 65536 points
        let big = Board::from_values([[65536, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        assert_eq!(built_points(big), (15 * 65536) as f32);
    }

    #[test]
    fn a_moves_merge_score_is_the_change_of_built_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..2000 {
            let mut grid = [[0u8; 4]; 4];
            for cell in grid.iter_mut().flatten() {
                *cell = rng.random_range(0..12);
            }
            let b = Board::from_exponents(grid).unwrap();
            for m in Move::ALL {
                if let Some((after, score)) = b.apply(m) {
                    let change = built_points(after) - built_points(b);
                    assert_eq!(change, score as f32, "{b:?} {m}");
                }
            }
        }
    }

    fn tiny_network_file(dir: &tempfile::TempDir) -> PathBuf {
        let net = Network::new("0123,4567".parse().unwrap(), 0.0);
        // the weight of the first tuple's pattern (1, 0, 0, 0), in each of its 8 images
        assert!(net.set_weight(1, 100.0));
        let path = dir.path().join("tiny.bin");
        net.save(&path).unwrap();
        path
    }

    #[test]
    fn the_evaluation_is_the_network_value_plus_built_points() {
        let dir = tempfile::tempdir().unwrap();
        let net = load_shared(&tiny_network_file(&dir)).unwrap();
        let eval = NTupleEval::new(net.clone());
        let b = Board::from_values([[4, 8, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]).unwrap();
        assert_eq!(eval.evaluate(b), net.value(b) + 4.0 + 16.0);
        // loaded once: the same copy again
        assert!(Arc::ptr_eq(
            &net,
            &load_shared(&dir.path().join("tiny.bin")).unwrap()
        ));
    }

    #[test]
    fn the_ntuple_solver_plays_the_move_of_highest_score_plus_value() {
        let dir = tempfile::tempdir().unwrap();
        let file = tiny_network_file(&dir);
        let mut config = SolverConfig::new(Shape::FOUR);
        config.options = vec![("network".into(), file.display().to_string())];
        let mut solver = registry::build("ntuple", &config).unwrap();
        assert_eq!(solver.name(), "ntuple");
        let net = load_shared(&file).unwrap();
        let b = Board::from_values([[2, 2, 4, 0], [0, 0, 0, 0], [0, 0, 0, 4], [0; 4]]).unwrap();
        let d = solver.decide(&b.into(), &Budget::default()).unwrap();
        let best = net.best_move(b).unwrap();
        assert_eq!(d.best, Some(best.mv));
    }

    #[test]
    fn a_network_is_refused_off_4x4_and_a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = tiny_network_file(&dir);
        let mut config = SolverConfig::new("5x5".parse().unwrap());
        config.evaluation = format!("ntuple:{}", file.display()).parse().unwrap();
        for name in ["ntuple", "expectimax", "greedy"] {
            let Err(err) = registry::build(name, &config) else {
                panic!("{name} built a network solver for 5x5");
            };
            assert!(
                matches!(err, SolverError::Unsupported { .. }),
                "{name}: {err}"
            );
            assert!(err.to_string().contains("4x4 boards only"), "{err}");
        }
        let missing = dir.path().join("none.bin");
        let err = format!("ntuple:{}", missing.display())
            .parse::<Evaluation>()
            .unwrap_err();
        assert!(matches!(err, SolverError::BadNetwork { .. }), "{err}");
        assert!(err.to_string().contains("none.bin") && err.to_string().contains("train"));
    }
}
