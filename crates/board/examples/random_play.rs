//! Plays random games and reports their speed and results: the whole-program
//! measure of the board's speed.
//!
//! ```sh
//! cargo run --release -p board --example random_play -- [GAMES] [SEED]
//! ```

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

use board::{Board, Game, RandomPolicy, SpawnRule};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut number = |name: &str, default: u64| match args.next() {
        None => default,
        Some(text) => text.parse().unwrap_or_else(|_| {
            eprintln!("random_play: {name} must be a whole number, not {text:?}");
            std::process::exit(2);
        }),
    };
    let games = number("GAMES", 200_000);
    let seed = number("SEED", 1);

    let mut spawns = Pcg64Mcg::seed_from_u64(seed);
    let mut policy = RandomPolicy(Pcg64Mcg::seed_from_u64(!seed));
    let (mut moves, mut score, mut reached) = (0u64, 0u64, [0u64; 16]);
    let start = Instant::now();
    for _ in 0..games {
        let game = Game::new(SpawnRule::STANDARD, &mut spawns);
        let episode = game
            .play_out(&mut policy, &mut spawns)
            .expect("random moves are legal");
        moves += episode.steps.len() as u64;
        score += episode.score();
        reached[usize::from(episode.max_tile())] += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    let mut report = format!(
        "{games} random games, {moves} moves in {seconds:.2} s: {:.1} M moves/s, average score {:.0}\n",
        moves as f64 / seconds / 1e6,
        score as f64 / games.max(1) as f64,
    );
    for (exponent, &count) in reached.iter().enumerate().filter(|&(_, &count)| count > 0) {
        let _ = writeln!(
            report,
            "max tile {:>6}: {count} games",
            Board::tile_value(exponent as u8)
        );
    }
    // A reader that stops early (`| head -1`) is not an error.
    let _ = std::io::stdout().write_all(report.as_bytes());
}
