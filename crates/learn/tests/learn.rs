//! Learning for real: networks get better, runs replay from their seed, and a
//! run resumed from a checkpoint ends exactly as an uninterrupted one.

use board::{Board, SpawnRule};
use learn::checkpoint::{self, Progress, Settings};
use learn::{Learning, Mode, Plan, Player, Run, Stats, seed_from_text};
use ntuple::{Network, parse_patterns};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn network(name: &str) -> Network {
    Network::new(parse_patterns([name]).unwrap()).unwrap()
}

fn run<'a>(
    network: &'a Network,
    learning: Option<Learning>,
    seed: &str,
    plan: &str,
    threads: usize,
) -> Run<'a> {
    Run {
        player: Player::Greedy {
            network,
            valued: learn::Valued::Afterstates,
            learning,
        },
        spawns: SpawnRule::STANDARD,
        seed: seed_from_text(seed),
        threads,
        plan: plan.parse().unwrap(),
        progress: None,
    }
}

fn play_all(run: &Run) -> Vec<Stats> {
    let mut blocks = Vec::new();
    let mut total = Stats::default();
    run.execute(0, &mut total, |block| {
        blocks.push(block.local.clone());
        Ok::<(), ()>(())
    })
    .unwrap();
    blocks
}

fn sample_boards() -> Vec<Board> {
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    (0..300)
        .map(|_| Board::from_raw(rng.next_u64() & 0x7777_7777_7777_7777))
        .collect()
}

/// The bits of the network's value on many boards: equal weights give equal
/// bits.
fn fingerprint(network: &Network) -> Vec<u32> {
    sample_boards()
        .into_iter()
        .map(|board| network.estimate(board).to_bits())
        .collect()
}

/// Random play scores about 1,100 on average (`random_play`); a greedy
/// player on an untrained network scores about the same.
#[test]
fn every_mode_learns_to_play_far_better_than_random() {
    // Measured with seed "test" (2x4patt): the first block of 1000 episodes
    // averages 3,579 to 4,139 and the second 5,905 to 6,181, whichever the
    // mode. TDL2048+ itself averages 5,751 over its first 3,000 episodes of
    // this network. The bound leaves half of that as margin.
    for mode in [Mode::Online, Mode::Forward, Mode::Backward] {
        let network = network("2x4patt");
        let learning = Learning {
            mode,
            ..Learning::default()
        };
        let blocks = play_all(&run(&network, Some(learning), "test", "2x1000", 1));
        let average = blocks[1].average();
        assert!(
            average > 3000.0,
            "{mode}: average {average} after 1000 episodes"
        );
        assert!(blocks[1].average() > blocks[0].average(), "{mode} improves");
    }
}

#[test]
fn one_thread_replays_bit_for_bit() {
    let learning = Some(Learning::default());
    let first = network("2x4patt");
    let second = network("2x4patt");
    assert_eq!(
        play_all(&run(&first, learning, "same", "2x100", 1)),
        play_all(&run(&second, learning, "same", "2x100", 1))
    );
    assert_eq!(fingerprint(&first), fingerprint(&second));
    let other = network("2x4patt");
    play_all(&run(&other, learning, "other", "2x100", 1));
    assert_ne!(fingerprint(&first), fingerprint(&other));
}

#[test]
fn a_resumed_run_ends_as_an_uninterrupted_one() {
    let learning = Learning::default();
    let plan: Plan = "4x100".parse().unwrap();
    let uninterrupted = network("2x4patt");
    let mut expected = Stats::default();
    run(&uninterrupted, Some(learning), "resume", "4x100", 1)
        .execute(0, &mut expected, |_| Ok::<(), ()>(()))
        .unwrap();

    // Two blocks, a checkpoint, then a "new process" picks it up.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.checkpoint");
    let settings = Settings {
        network: "0123 4567".to_owned(),
        plan,
        seed: seed_from_text("resume"),
        learning,
        four_rate: 0.1,
    };
    let interrupted = network("2x4patt");
    let mut total = Stats::default();
    let first_half = run(&interrupted, Some(learning), "resume", "4x100", 1);
    first_half
        .execute(0, &mut total, |block| {
            if block.index == 1 {
                let progress = Progress {
                    settings: settings.clone(),
                    blocks_done: 2,
                    total: block.total.clone(),
                    seed_text: Some("resume".to_owned()),
                };
                checkpoint::save(&path, &interrupted, &progress).unwrap();
                return Err(()); // killed after block 2
            }
            Ok(())
        })
        .unwrap_err();
    drop(interrupted);

    let (resumed, progress) = checkpoint::load(&path, &settings).unwrap().unwrap();
    assert_eq!(progress.blocks_done, 2);
    let mut total = progress.total;
    run(&resumed, Some(learning), "resume", "4x100", 1)
        .execute(progress.blocks_done, &mut total, |_| Ok::<(), ()>(()))
        .unwrap();
    assert_eq!(total, expected);
    assert_eq!(fingerprint(&resumed), fingerprint(&uninterrupted));

    // Another run's checkpoint is refused, not silently continued, naming
    // what differs and nothing else.
    let other = Settings {
        seed: seed_from_text("different"),
        four_rate: 0.2,
        ..settings.clone()
    };
    let error = checkpoint::load::<Network>(&path, &other)
        .unwrap_err()
        .to_string();
    let expected = format!(
        "was written by another run: seed {}, not {}; 4-rate 0.1, not 0.2; delete it or pass --restart",
        settings.seed, other.seed
    );
    assert!(error.ends_with(&expected), "{error}");
    // What it says of itself, without reading its weights.
    let progress = checkpoint::progress_of(&path).unwrap().unwrap();
    assert_eq!(
        (progress.blocks_done, progress.seed_text.as_deref()),
        (2, Some("resume"))
    );
    assert!(
        checkpoint::progress_of(&dir.path().join("none"))
            .unwrap()
            .is_none()
    );

    // So are a damaged one and a plain weight file, saying what to do.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..262_936]).unwrap();
    let error = checkpoint::load::<Network>(&path, &settings).unwrap_err();
    let expected = format!(
        "checkpoint {}: truncated: 262936 bytes, but network 0123 4567 needs exactly {}; \
         delete it or pass --restart",
        path.display(),
        bytes.len()
    );
    assert_eq!(error.to_string(), expected);
    uninterrupted.save(&path, &Default::default()).unwrap();
    let error = checkpoint::load::<Network>(&path, &settings).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with(": holds no training progress; delete it or pass --restart"),
        "{error}"
    );
}

#[test]
fn threads_share_the_network_and_play_every_episode() {
    let network = network("2x4patt");
    let blocks = play_all(&run(
        &network,
        Some(Learning::default()),
        "threads",
        "3x200",
        2,
    ));
    assert!(blocks.iter().all(|block| block.episodes == 200));
    let played: u64 = blocks
        .iter()
        .map(|block| block.by_tile.iter().map(|row| row.episodes).sum::<u64>())
        .sum();
    assert_eq!(played, 600);
    assert_ne!(
        network.estimate(Board::from_raw(0x0000_0000_0001_0011)),
        0.0,
        "the threads learned"
    );
}

#[test]
fn playing_without_learning_leaves_the_weights_alone() {
    let network = network("2x4patt");
    play_all(&run(&network, Some(Learning::default()), "warm", "1x50", 1));
    let before = fingerprint(&network);
    let stats = play_all(&run(&network, None, "eval", "1x50", 2));
    assert_eq!(stats[0].episodes, 50);
    assert_eq!(fingerprint(&network), before);
}

/// The log TDL2048+ wrote evaluating its 2x4patt network (the fixture).
fn tdl2048_log() -> String {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/tdl2048");
    assert!(
        dir.is_dir(),
        "the TDL2048+ fixtures are missing: expected {}",
        dir.display()
    );
    std::fs::read_to_string(dir.join("eval-2x4patt-td.x")).unwrap()
}

/// The text 2048lab prints for `run`: its blocks, then the summary.
fn log_of(run: &Run) -> (String, Stats) {
    let mut text = format!("evaluate: {}\n\n", run.plan);
    let mut total = Stats::default();
    let elapsed = run
        .execute(0, &mut total, |block| {
            text += &block.report(run.plan.blocks, 11);
            Ok::<(), ()>(())
        })
        .unwrap();
    text += &learn::summary(elapsed, &total, 11);
    (text, total)
}

#[test]
fn logs_of_tdl2048_and_of_2048lab_read_alike() {
    let runs = logfile::parse_log(&tdl2048_log()).unwrap();
    assert_eq!(runs.len(), 1);
    let logged = &runs[0];
    assert_eq!(
        (logged.kind.as_str(), logged.block_size),
        ("evaluate", Some(1000))
    );
    assert_eq!(logged.blocks.len(), 2);
    assert_eq!(logged.blocks[1].total.unwrap().avg, 7468);
    assert_eq!(logged.blocks[1].total.unwrap().max, 21796);
    assert_eq!(logged.summary.len(), 6);
    assert_eq!(
        logged
            .summary
            .iter()
            .filter_map(|row| row.count)
            .sum::<u64>(),
        2000
    );
    assert_eq!(logged.summary[5].tile, 2048);

    // 2048lab's own text of a run reads back to its numbers.
    let network = network("2x4patt");
    let (text, total) = log_of(&run(&network, None, "log", "2x30", 1));
    let runs = logfile::parse_log(&text).unwrap();
    assert_eq!(runs[0].block_size, Some(30));
    assert_eq!(runs[0].blocks[1].total.unwrap().avg, total.average() as u64);
    assert_eq!(
        runs[0]
            .summary
            .iter()
            .filter_map(|row| row.count)
            .sum::<u64>(),
        60
    );
}

/// The rules TDL2048+'s helper scripts read logs by: `2048-winrate.sh` keeps
/// the summary rows matching `^[0-9]+ [0-9. ]+% +[0-9.]+%$`, and
/// `2048-parse.sh` wants `local:`/`total:` lines of exactly five fields
/// starting `avg=`, `max=`, `tile=`, `win=`.
fn read_as_tdl2048_scripts_do(log: &str) -> (usize, usize) {
    let summary_row = regex::Regex::new(r"^[0-9]+ [0-9. ]+% +[0-9.]+%$").unwrap();
    let rows = log
        .lines()
        .filter(|line| summary_row.is_match(line))
        .count();
    let mut briefs = 0;
    for line in log
        .lines()
        .filter(|l| l.starts_with("local:") || l.starts_with("total:"))
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 5, "{line}");
        for (field, prefix) in fields[1..].iter().zip(["avg=", "max=", "tile=", "win="]) {
            assert!(field.starts_with(prefix), "{line}");
        }
        briefs += 1;
    }
    (rows, briefs)
}

#[test]
fn tdl2048s_scripts_read_2048labs_logs_as_they_read_its_own() {
    assert_eq!(read_as_tdl2048_scripts_do(&tdl2048_log()), (6, 5));
    let network = network("2x4patt");
    let (ours, total) = log_of(&run(
        &network,
        Some(Learning::default()),
        "scripts",
        "3x40",
        1,
    ));
    let rows = total.by_tile.iter().filter(|row| row.episodes > 0).count();
    assert_eq!(read_as_tdl2048_scripts_do(&ours), (rows, 7));
}

#[test]
fn downgrading_changes_nothing_below_its_threshold() {
    use search::{Depth, Heuristic, Settings};
    let heuristic = Heuristic::new();
    let settings = Settings::new(Depth::new(2).unwrap());
    let play = |downgrade| {
        let mut rng = learn::episode_rng(5, 0);
        learn::play_searched(&heuristic, settings, None, downgrade, &mut rng, &mut ())
    };
    // 2^19 is never reached: the same game as on the 64-bit board.
    assert_eq!(play(Some(19)), play(None));
    // A low threshold still plays legal moves to the end, past it.
    let low = play(Some(6));
    assert!(low.max_tile >= 7, "{low:?}");
}
