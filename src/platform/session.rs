//! [`Session`]: which desktop session the bot runs in, read from the environment, and what to
//! tell a user whose game runs where the bot cannot see it.
//!
//! The variables, as display managers and compositors set them: `XDG_SESSION_TYPE` (`x11`,
//! `wayland`, `tty`), `WAYLAND_DISPLAY` (the compositor's socket, e.g. `wayland-0`), `DISPLAY`
//! (the X server: Xorg, or the compositor's XWayland), `XDG_CURRENT_DESKTOP` (a colon-separated
//! list, e.g. `ubuntu:GNOME`, `KDE`, `sway`, `Hyprland`).

/// The kind of session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKind {
    /// An X11 session (`XDG_SESSION_TYPE=x11`, or an X display and no Wayland one).
    X11,
    /// A Wayland session (`XDG_SESSION_TYPE=wayland`, or `WAYLAND_DISPLAY` set without a type).
    Wayland,
    /// Neither (a console, ssh, a bare test environment).
    Unknown,
}

/// The desktop, from `XDG_CURRENT_DESKTOP`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DesktopKind {
    /// GNOME (Mutter), incl. Ubuntu's `ubuntu:GNOME`.
    Gnome,
    /// KDE Plasma (KWin).
    Kde,
    /// A wlroots compositor (sway, Hyprland, river, labwc, Wayfire): its name as given.
    Wlroots(String),
    /// Another desktop: its name as given.
    Other(String),
    /// `XDG_CURRENT_DESKTOP` unset or empty.
    Unknown,
}

impl DesktopKind {
    /// Parses `XDG_CURRENT_DESKTOP` (colon-separated, case-insensitive; the first known name wins).
    pub fn parse(value: &str) -> DesktopKind {
        const WLROOTS: &[&str] = &["sway", "hyprland", "river", "labwc", "wayfire", "wlroots"];
        let parts: Vec<&str> = value
            .split(':')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        for p in &parts {
            let l = p.to_lowercase();
            if l == "gnome" || l.starts_with("gnome-") {
                return DesktopKind::Gnome;
            }
            if l == "kde" || l == "plasma" {
                return DesktopKind::Kde;
            }
            if WLROOTS.contains(&l.as_str()) {
                return DesktopKind::Wlroots((*p).to_string());
            }
        }
        match parts.first() {
            Some(p) => DesktopKind::Other((*p).to_string()),
            None => DesktopKind::Unknown,
        }
    }
}

impl std::fmt::Display for DesktopKind {
    /// `GNOME`, `KDE Plasma`, the compositor's name, or `an unknown desktop`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DesktopKind::Gnome => f.write_str("GNOME"),
            DesktopKind::Kde => f.write_str("KDE Plasma"),
            DesktopKind::Wlroots(n) | DesktopKind::Other(n) => f.write_str(n),
            DesktopKind::Unknown => f.write_str("an unknown desktop"),
        }
    }
}

/// The session the bot runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// X11, Wayland, or neither.
    pub kind: SessionKind,
    /// The desktop, from `XDG_CURRENT_DESKTOP`.
    pub desktop: DesktopKind,
    /// `DISPLAY`, when set and not empty: the X server (XWayland in a Wayland session).
    pub display: Option<String>,
    /// `WAYLAND_DISPLAY`, when set and not empty.
    pub wayland_display: Option<String>,
}

/// How to start each game as an X11 window in a Wayland session: (game, command).
pub const XWAYLAND_STARTS: &[(&str, &str)] = &[
    ("gnome-2048", "GDK_BACKEND=x11 gnome-2048"),
    ("2048-qt", "QT_QPA_PLATFORM=xcb 2048-qt"),
    (
        "the web game",
        "chromium --ozone-platform=x11 --app=URL (Chrome: google-chrome --ozone-platform=x11; \
         Firefox: MOZ_ENABLE_WAYLAND=0 firefox URL)",
    ),
];

impl Session {
    /// The session of this process, from its environment.
    pub fn detect() -> Session {
        Session::from_vars(|name| std::env::var(name).ok())
    }

    /// The session that the variables `var` returns describe (see the module doc); empty
    /// values count as unset.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Session {
        let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let display = get("DISPLAY");
        let wayland_display = get("WAYLAND_DISPLAY");
        let kind = match get("XDG_SESSION_TYPE").map(|t| t.to_lowercase()).as_deref() {
            Some("wayland") => SessionKind::Wayland,
            Some("x11") => SessionKind::X11,
            _ if wayland_display.is_some() => SessionKind::Wayland,
            _ if display.is_some() => SessionKind::X11,
            _ => SessionKind::Unknown,
        };
        Session {
            kind,
            desktop: get("XDG_CURRENT_DESKTOP")
                .map_or(DesktopKind::Unknown, |d| DesktopKind::parse(&d)),
            display,
            wayland_display,
        }
    }

    /// True in a Wayland session whose compositor may offer the wlroots protocols (a Wayland
    /// socket, and not GNOME or KDE, which offer none of them): worth a probe.
    pub fn may_be_wlroots(&self) -> bool {
        self.kind == SessionKind::Wayland
            && self.wayland_display.is_some()
            && !matches!(self.desktop, DesktopKind::Gnome | DesktopKind::Kde)
    }

    /// True in a Wayland session: the bot sees only the X11 windows of its XWayland.
    pub fn is_wayland(&self) -> bool {
        self.kind == SessionKind::Wayland
    }

    /// The session in words, e.g. "an X11 session", "a Wayland session (GNOME), X11 windows
    /// through XWayland on :0".
    pub fn describe(&self) -> String {
        match (self.kind, &self.display) {
            (SessionKind::Wayland, Some(d)) => format!(
                "a Wayland session ({}), X11 windows through XWayland on {d}",
                self.desktop
            ),
            (SessionKind::Wayland, None) => {
                format!("a Wayland session ({}) without XWayland", self.desktop)
            }
            (SessionKind::X11, _) => "an X11 session".into(),
            (SessionKind::Unknown, _) => "no desktop session".into(),
        }
    }

    /// How to start each game under XWayland, one indented line per game, closed by what to run
    /// next; on a wlroots compositor also where native windows stand.
    pub fn xwayland_starts(&self) -> String {
        let mut s = String::from("Start the game as an X11 window under XWayland:\n");
        let w = XWAYLAND_STARTS
            .iter()
            .map(|(g, _)| g.len())
            .max()
            .unwrap_or(0)
            + 1;
        for (game, command) in XWAYLAND_STARTS {
            s.push_str(&format!("  {:<w$} {command}\n", format!("{game}:")));
        }
        s.push_str("then `bot2048 windows` lists it.");
        if matches!(self.desktop, DesktopKind::Wlroots(_)) {
            s.push_str(
                " Native Wayland windows work where the compositor offers the wlroots protocols \
                 (docs/wayland.md).",
            );
        }
        s
    }

    /// What to tell a user whose game window is not among the X11 windows of a Wayland session:
    /// on GNOME, KDE and the rest alike, the game must run under XWayland. `None` outside Wayland.
    pub fn not_found_hint(&self) -> Option<String> {
        self.is_wayland().then(|| {
            format!(
                "This is {}: bot2048 sees only X11 windows, and a game that runs as a native \
                 Wayland window is not among them. {}",
                self.describe(),
                self.xwayland_starts()
            )
        })
    }

    /// The message of a Wayland session without XWayland (`DISPLAY` unset).
    pub fn no_xwayland_message(&self) -> String {
        format!(
            "{}: bot2048 plays X11 windows only, through XWayland, and DISPLAY is not set \
             (is XWayland enabled? sway: `xwayland enable`). {}",
            self.describe(),
            self.xwayland_starts()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(vars: &[(&str, &str)]) -> Session {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Session::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_session_kind_comes_from_the_type_then_the_displays() {
        let s = session(&[
            ("XDG_SESSION_TYPE", "wayland"),
            ("WAYLAND_DISPLAY", "wayland-0"),
            ("DISPLAY", ":0"),
            ("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"),
        ]);
        assert_eq!(s.kind, SessionKind::Wayland);
        assert_eq!(s.desktop, DesktopKind::Gnome);
        assert_eq!(s.display.as_deref(), Some(":0"));
        assert_eq!(session(&[("DISPLAY", ":5")]).kind, SessionKind::X11);
        assert_eq!(
            session(&[("WAYLAND_DISPLAY", "wayland-1"), ("DISPLAY", ":1")]).kind,
            SessionKind::Wayland
        );
        // an explicit x11 type wins over a leftover WAYLAND_DISPLAY (a nested X server)
        assert_eq!(
            session(&[("XDG_SESSION_TYPE", "x11"), ("WAYLAND_DISPLAY", "w")]).kind,
            SessionKind::X11
        );
        assert_eq!(
            session(&[("XDG_SESSION_TYPE", "tty"), ("DISPLAY", "")]).kind,
            SessionKind::Unknown
        );
        assert_eq!(session(&[("DISPLAY", "")]).display, None);
    }

    #[test]
    fn desktops_are_named_from_xdg_current_desktop() {
        assert_eq!(DesktopKind::parse("KDE"), DesktopKind::Kde);
        assert_eq!(
            DesktopKind::parse("GNOME-Classic:GNOME"),
            DesktopKind::Gnome
        );
        assert_eq!(
            DesktopKind::parse("sway"),
            DesktopKind::Wlroots("sway".into())
        );
        assert_eq!(
            DesktopKind::parse("labwc:wlroots"),
            DesktopKind::Wlroots("labwc".into())
        );
        assert_eq!(
            DesktopKind::parse("XFCE"),
            DesktopKind::Other("XFCE".into())
        );
        assert_eq!(DesktopKind::parse(""), DesktopKind::Unknown);
    }

    #[test]
    fn gnome_and_kde_wayland_users_are_told_how_to_start_each_game_under_xwayland() {
        for (desktop, name) in [("GNOME", "GNOME"), ("KDE", "KDE Plasma")] {
            let s = session(&[
                ("XDG_SESSION_TYPE", "wayland"),
                ("WAYLAND_DISPLAY", "wayland-0"),
                ("DISPLAY", ":0"),
                ("XDG_CURRENT_DESKTOP", desktop),
            ]);
            let hint = s.not_found_hint().expect("a hint in a Wayland session");
            assert!(
                hint.contains(&format!("a Wayland session ({name})")),
                "{hint}"
            );
            assert!(
                hint.contains("  gnome-2048:   GDK_BACKEND=x11 gnome-2048\n"),
                "{hint}"
            );
            assert!(
                hint.contains("  2048-qt:      QT_QPA_PLATFORM=xcb 2048-qt\n"),
                "{hint}"
            );
            assert!(
                hint.contains("the web game: chromium --ozone-platform=x11 --app=URL"),
                "{hint}"
            );
            assert!(hint.ends_with("then `bot2048 windows` lists it."), "{hint}");
        }
        let x11 = session(&[("XDG_SESSION_TYPE", "x11"), ("DISPLAY", ":0")]);
        assert_eq!(x11.not_found_hint(), None);
        let sway = session(&[
            ("WAYLAND_DISPLAY", "wayland-1"),
            ("XDG_CURRENT_DESKTOP", "sway"),
        ]);
        let m = sway.no_xwayland_message();
        assert!(
            m.starts_with("a Wayland session (sway) without XWayland"),
            "{m}"
        );
        assert!(
            m.contains("xwayland enable") && m.contains("Native Wayland windows work where"),
            "{m}"
        );
    }
}
