//! The passphrase prompt, over whatever panel is on screen. What is typed
//! never shows: a fixed marker says only that something was, so not even
//! the passphrase's length can be read off the screen.

use crate::app::App;
use crate::link::Secret;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// Shown for any non-empty input, whatever its length.
pub const TYPED_MARKER: &str = "••••••••";

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let Some(prompt) = app.passphrase_prompt() else {
        return;
    };
    let t = &app.theme;
    let (title, question, wrong) = match &prompt.key {
        Secret::Identity(identity) => {
            let (cells, nodes) = app.hosts_waiting_on(identity);
            let who: Vec<String> = [("cells", cells), ("nodes", nodes)]
                .into_iter()
                .filter(|(_, hosts)| !hosts.is_empty())
                .map(|(kind, hosts)| format!("{kind}: {}", hosts.join(", ")))
                .collect();
            let question = if who.is_empty() {
                format!("Passphrase for {}:", identity.display())
            } else {
                format!(
                    "Passphrase for {} ({}):",
                    identity.display(),
                    who.join("; ")
                )
            };
            (
                " Passphrase ",
                question,
                "wrong passphrase: the key file did not open; try again",
            )
        }
        Secret::Database(label) => (
            " Password ",
            format!("Password for the database {label}:"),
            "wrong password: the database refused it (ORA-01017); try again",
        ),
    };
    let mut lines = Vec::new();
    if prompt.wrong {
        lines.push(Line::from(Span::styled(wrong, t.crit)));
    }
    lines.push(Line::from(Span::styled(question, t.base)));
    let typed = if prompt.has_input() {
        format!("{TYPED_MARKER} (hidden)")
    } else {
        String::new()
    };
    lines.push(Line::from(vec![
        Span::styled("> ", t.key),
        Span::styled(typed, t.accent),
        Span::styled("▏", t.base),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "Enter unlock · Esc later (i asks again) · Ctrl-U clear",
        t.muted,
    )));

    let w = 80.min(area.width);
    let inner_w = usize::from(w.saturating_sub(2)).max(1);
    // wrapped rows of each line, so a long path is not cut off
    let rows = super::widgets::wrapped_rows(&lines, inner_w);
    let h = (rows as u16 + 2).min(area.height);
    let rect = super::widgets::centered(area, w, h);
    f.render_widget(Clear, rect);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(super::panel_block(title, t, true)),
        rect,
    );
}
