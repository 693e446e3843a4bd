//! `mublas report`: the evidence for the tuner (the paper's Figs. 8–11).
//!
//! For each routine, sweeps problem sizes; at each size times every candidate
//! shape (forced), the online optimizer's own choice (the normal call path)
//! and cuBLAS. Writes `report-<routine>.csv` (one row per size and candidate)
//! and `report-<routine>.svg`: above, the spread of the candidates' rates per
//! size as box plots with the online choice and cuBLAS as lines; below, the
//! chosen and the best Tx (and Ty). Prints how often the online choice is
//! within 3 % of the best candidate.

use crate::tune::{Sample, time_candidates};
use crate::workload::{AxpyLayout, MublasSession, Workload};
use mublas::capi::types::*;
use mublas::harness::{EventTimer, Random};
use mublas::real_cublas::RealCublas;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;

struct Options {
    routines: Vec<String>,
    out_dir: PathBuf,
    sizes: usize,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options { routines: Vec::new(), out_dir: PathBuf::from("."), sizes: 49 };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--routine" => options.routines.push(it.next().ok_or("--routine needs a name")?.clone()),
            "--out" => options.out_dir = PathBuf::from(it.next().ok_or("--out needs a folder")?),
            "--sizes" => {
                options.sizes =
                    it.next().and_then(|v| v.parse().ok()).filter(|&n| n > 0).ok_or("--sizes needs a number above 0")?
            }
            other => return Err(format!("unknown report argument {other:?}")),
        }
    }
    if options.routines.is_empty() {
        options.routines = ["saxpy", "sgemv", "sgemv-t", "strmv"].iter().map(|r| r.to_string()).collect();
    }
    Ok(options)
}

/// One size of the sweep.
struct Point {
    size: f64,
    label: String,
    samples: Vec<Sample>,
    chosen: mublas::tuner::LaunchShape,
    /// The chosen shape and the fastest candidate re-timed side by side with
    /// more repetitions: the minimum over dozens of short timings is biased
    /// low (the winner's curse), so the 3 % verdict uses these.
    chosen_us: f64,
    best_us: f64,
    online_rate: f64,
    cublas_rate: Option<f64>,
    rate_of: Box<dyn Fn(f64) -> f64>,
}

impl Point {
    fn best(&self) -> &Sample {
        self.samples.iter().min_by(|a, b| a.us.total_cmp(&b.us)).expect("at least one candidate")
    }

    /// The chosen shape against the fastest candidate, from the side-by-side re-timing.
    fn choice_within(&self, fraction: f64) -> bool {
        self.chosen == self.best().shape || self.best_us / self.chosen_us >= 1.0 - fraction
    }
}

/// Sizes for a routine's sweep: geometric between its bounds, deliberately not powers of two.
fn sweep(routine: &str, count: usize) -> Vec<usize> {
    let (lo, hi) = match routine {
        "saxpy" => (12.0f64, 24.0f64),
        "strmv" => (9.0f64, 14.0f64),
        "sgemm" => (8.0f64, 12.0f64),
        _ => (8.0f64, 13.5f64),
    };
    // The matrix kernels have hundreds of candidate shapes: fewer sizes keep the sweep in minutes.
    let count = if routine == "saxpy" { count } else { count.min(25) };
    (0..count).map(|i| 2f64.powf(lo + (hi - lo) * i as f64 / (count.max(2) - 1) as f64).round() as usize).collect()
}

fn workload_for(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    routine: &str,
    size: usize,
    random: &mut Random,
) -> Result<Workload, String> {
    match routine {
        "saxpy" => Workload::saxpy(h, handle, size, AxpyLayout::Aligned, random),
        "sgemv" => Workload::sgemv(h, handle, mublas::routines::gemv::Op::N, size, size, random),
        "sgemv-t" => Workload::sgemv(h, handle, mublas::routines::gemv::Op::T, size, size, random),
        "strmv" => Workload::strmv(h, handle, 0, 0, 0, size, false, random),
        "sgemm" => Workload::sgemm(h, handle, 0, 0, size, size, size, random),
        other => Err(format!("no report for {other:?}")),
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let session = MublasSession::open()?;
    let (h, handle) = (session.handle(), session.raw());
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let cublas = RealCublas::get().ok();
    let mut random = Random::new(8);
    std::fs::create_dir_all(&options.out_dir).map_err(|e| e.to_string())?;
    for routine in &options.routines {
        let mut points = Vec::new();
        for size in sweep(routine, options.sizes) {
            let workload = workload_for(h, handle, routine, size, &mut random)?;
            let (warmups, reps) = if routine == "saxpy" { (2, 11) } else { (1, 5) };
            let samples = time_candidates(h, &workload, &timer, warmups, reps)?;
            let chosen = workload.plan(h)?.shape;
            let best_shape =
                samples.iter().min_by(|a, b| a.us.total_cmp(&b.us)).map(|s| s.shape).ok_or("no candidate")?;
            let (mut chosen_us, mut best_us) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                for (shape, out) in [(chosen, &mut chosen_us), (best_shape, &mut best_us)] {
                    h.device.tuner.forced().set(workload.spec.name, Some(shape));
                    let timed = workload.time_mublas(&timer, 2, 11);
                    h.device.tuner.forced().set(workload.spec.name, None);
                    out.push(timed?);
                }
            }
            let online_us = workload.time_mublas(&timer, 2, 21)?;
            let cublas_us = match cublas {
                Some(c) => workload.time_cublas(c, &timer, 2, 21)?,
                None => None,
            };
            let (work, unit) = (workload.work, workload.unit);
            points.push(Point {
                size: size as f64,
                label: workload.label.clone(),
                samples,
                chosen,
                chosen_us: mublas::harness::timing::median(&mut chosen_us),
                best_us: mublas::harness::timing::median(&mut best_us),
                online_rate: workload.rate(online_us),
                cublas_rate: cublas_us.map(|us| workload.rate(us)),
                rate_of: Box::new(move |us| unit.rate(work, us)),
            });
        }
        let within = points.iter().filter(|p| p.choice_within(0.03)).count();
        println!(
            "(rates in {}: chosen and best re-timed side by side, median of 5 × 11 calls, alternating; online = the normal call path)",
            rate_unit(routine)
        );
        println!(
            "{routine}: online choice within 3 % of the best candidate at {within} of {} sizes ({:.0} %)",
            points.len(),
            100.0 * within as f64 / points.len() as f64
        );
        println!(
            "  {:<14} {:>12} {:>12} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "size", "chosen", "best", "chosen", "best", "online", "cuBLAS", "verdict"
        );
        for p in &points {
            let best = p.best();
            println!(
                "  {:<14} {:>12} {:>12} {:>9.0} {:>9.0} {:>9.0} {:>9} {:>9}",
                p.label,
                format!("{}x{}x{}", p.chosen.tx, p.chosen.ty, p.chosen.split),
                format!("{}x{}x{}", best.shape.tx, best.shape.ty, best.shape.split),
                (p.rate_of)(p.chosen_us),
                (p.rate_of)(p.best_us),
                p.online_rate,
                p.cublas_rate.map(|r| format!("{r:.0}")).unwrap_or("-".into()),
                if p.choice_within(0.03) { "ok" } else { "slower" }
            );
        }
        let csv_path = options.out_dir.join(format!("report-{routine}.csv"));
        std::fs::write(&csv_path, csv(&points)).map_err(|e| format!("{}: {e}", csv_path.display()))?;
        let svg_path = options.out_dir.join(format!("report-{routine}.svg"));
        plot(routine, &points, &svg_path).map_err(|e| format!("{}: {e}", svg_path.display()))?;
        println!("wrote {} and {}", csv_path.display(), svg_path.display());
    }
    Ok(())
}

fn csv(points: &[Point]) -> String {
    let mut out = String::from(
        "size,tx,ty,split,warp_occupancy,block_occupancy,grid_occupancy,us,rate,chosen,online_rate,cublas_rate\n",
    );
    for p in points {
        for s in &p.samples {
            let _ = writeln!(
                out,
                "{},{},{},{},{:.4},{:.4},{:.4},{:.3},{:.1},{},{:.1},{}",
                p.size,
                s.shape.tx,
                s.shape.ty,
                s.shape.split,
                s.occupancy.warp,
                s.occupancy.block,
                s.occupancy.grid,
                s.us,
                (p.rate_of)(s.us),
                (s.shape == p.chosen) as u8,
                p.online_rate,
                p.cublas_rate.map(|r| format!("{r:.1}")).unwrap_or_default()
            );
        }
    }
    out
}

/// The unit of a routine's rates (the workloads' `Unit` labels).
fn rate_unit(routine: &str) -> &'static str {
    if routine == "sgemm" { "TFLOP/s" } else { "GB/s" }
}

fn plot(routine: &str, points: &[Point], path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1400, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let (upper, lower) = root.split_vertically(600);
    let x_of = |p: &Point| p.size.log2();
    let (x_lo, x_hi) = (x_of(&points[0]) - 0.2, x_of(points.last().unwrap()) + 0.2);
    let rates: Vec<f64> = points
        .iter()
        .flat_map(|p| p.samples.iter().map(|s| (p.rate_of)(s.us)).chain([p.online_rate]).chain(p.cublas_rate))
        .collect();
    let y_hi = rates.iter().cloned().fold(0.0, f64::max) * 1.05;

    let mut chart = ChartBuilder::on(&upper)
        .caption(format!("{routine}: every candidate shape (boxes), the online choice and cuBLAS"), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, 0f32..y_hi as f32)?;
    chart.configure_mesh().x_desc("log2(problem size)").y_desc(rate_unit(routine)).draw()?;
    chart.draw_series(points.iter().map(|p| {
        let rates: Vec<f64> = p.samples.iter().map(|s| (p.rate_of)(s.us)).collect();
        Boxplot::new_vertical(x_of(p), &Quartiles::new(&rates)).width(6).style(BLUE.mix(0.6))
    }))?;
    chart
        .draw_series(LineSeries::new(points.iter().map(|p| (x_of(p), p.online_rate as f32)), RED.stroke_width(2)))?
        .label("mublas online choice")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    if points.iter().all(|p| p.cublas_rate.is_some()) {
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (x_of(p), p.cublas_rate.unwrap() as f32)),
                BLACK.stroke_width(2),
            ))?
            .label("cuBLAS")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;

    let tx_hi = points.iter().flat_map(|p| [p.chosen.tx, p.best().shape.tx]).max().unwrap_or(1024) as f32 * 1.1;
    let mut shapes = ChartBuilder::on(&lower)
        .caption("Tx chosen by the optimizer (red) and of the fastest candidate (blue)", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, 0f32..tx_hi)?;
    shapes.configure_mesh().x_desc("log2(problem size)").y_desc("Tx").draw()?;
    shapes.draw_series(points.iter().map(|p| Circle::new((x_of(p), p.best().shape.tx as f32), 5, BLUE.filled())))?;
    shapes.draw_series(points.iter().map(|p| Cross::new((x_of(p), p.chosen.tx as f32), 6, RED.stroke_width(2))))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_has_at_least_one_size() {
        let sizes = |value: &str| parse(&["--sizes".to_string(), value.to_string()]).map(|options| options.sizes);
        assert!(sizes("0").is_err(), "no sizes: nothing to plot");
        assert_eq!(sizes("1"), Ok(1));
        assert_eq!(sweep("sgemv", 1).len(), 1);
        assert_eq!(sweep("saxpy", 49).len(), 49);
    }
}
