//! `ragpipe serve admin`: the admin API and page over this deployment's
//! adapters (see `wiring::admin`), until SIGTERM or Ctrl-C.

use crate::wiring;
use ragpipe_config::Config;
use ragpipe_worker::Stop;
use std::process::ExitCode;

pub async fn serve(config: Config, listen: Option<String>) -> anyhow::Result<ExitCode> {
    let admin = wiring::admin(&config).await?;
    let addr = listen.unwrap_or_else(|| config.admin.listen.clone());
    let listener = ragpipe_admin::bind(&addr, admin.token.as_deref()).await?;
    // The bound address (the port may have been 0), for scripts and tests.
    println!("admin listening on http://{}", listener.local_addr()?);
    ragpipe_admin::serve(admin, listener, Stop::on_signals().stopped_owned()).await?;
    Ok(ExitCode::SUCCESS)
}

/// "3 min ago"-style age of a millisecond timestamp.
pub fn updated(ms: i64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let secs = ((now - ms) / 1000).max(0) as u64;
    format!("{} ago", humantime::format_duration(std::time::Duration::from_secs(secs)))
}
