//! Plays the same games with several of the player's settings over one set
//! of tables, read once (reading a whole set takes longer than a short
//! comparison): the way docs/player.md compares depths and rates.
//!
//! ```sh
//! cargo run --release -p player --example settings -- GAMES DEPTHS/... RATE,... [TABLES...]
//! cargo run --release -p player --example settings -- 40 3p/3p,4p@5,5p@2 0.5,0.9 tables
//! ```
//!
//! Game `i` is seeded with `i`, so every setting plays the same games. Each
//! line gives a setting's average score with its standard error, the share
//! of games that reached each large tile, moves per second on all cores,
//! and the moves of each source.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use board::SpawnRule;
use learn::{Agent, Outcome};
use player::{Depths, Player, Settings, Tables};
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: settings GAMES DEPTHS/... RATE,... [TABLES...]";
    let [games, depths, rates, tables @ ..] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let list = |text: &str| -> Vec<String> { text.split(',').map(str::to_owned).collect() };
    let (Ok(games), Ok(depths), Ok(rates)) = (
        games.parse::<u64>(),
        depths
            .split('/')
            .map(str::parse::<Depths>)
            .collect::<Result<Vec<_>, _>>(),
        list(rates)
            .iter()
            .map(|r| r.parse::<f32>())
            .collect::<Result<Vec<_>, _>>(),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let dirs: Vec<PathBuf> = tables.iter().map(PathBuf::from).collect();
    let (mut tables, problems) = Tables::open(&dirs);
    for problem in problems {
        eprintln!("warning: {problem}");
    }
    for &depths in &depths {
        for &rate in &rates {
            let player = Player::new(Settings::new(depths), tables.with_min_rate(rate));
            let start = Instant::now();
            let outcomes = play(&player, games);
            let seconds = start.elapsed().as_secs_f64();
            println!("{depths}, min rate {rate}: {}", report(&outcomes, seconds));
            println!("  {}", player.sources());
            tables = player.into_tables();
        }
    }
}

/// Plays games `0..games` on every core.
fn play(player: &Player, games: u64) -> Vec<Outcome> {
    let next = AtomicU64::new(0);
    let outcomes = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let game = next.fetch_add(1, Relaxed);
                    if game >= games {
                        break;
                    }
                    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(game);
                    let outcome = player.play(SpawnRule::STANDARD, &mut rng, &mut ());
                    outcomes.lock().expect("no player panics").push(outcome);
                }
            });
        }
    });
    outcomes.into_inner().expect("no player panics")
}

fn report(outcomes: &[Outcome], seconds: f64) -> String {
    let games = outcomes.len() as f64;
    let average = outcomes.iter().map(|o| o.score as f64).sum::<f64>() / games;
    let variance = outcomes
        .iter()
        .map(|o| (o.score as f64 - average).powi(2))
        .sum::<f64>()
        / games;
    let reached = |tile: u8| {
        let count = outcomes.iter().filter(|o| o.max_tile >= tile).count();
        format!("{}: {:.1}%", 1u32 << tile, 100.0 * count as f64 / games)
    };
    let moves: u64 = outcomes.iter().map(|o| o.moves).sum();
    format!(
        "average {average:.0} (standard error {:.0}), {}, {}, {}, {}, {:.0} moves/s",
        (variance / games).sqrt(),
        reached(13),
        reached(14),
        reached(15),
        reached(16),
        moves as f64 / seconds
    )
}
