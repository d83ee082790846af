//! The X11 windows of a wlroots session: which toplevel of the compositor's list is an XWayland
//! window that the X11 route also sees.
//!
//! A wlroots compositor lists its XWayland windows among its toplevels
//! (`zwlr_foreign_toplevel_manager_v1`), with their title and, for the app id, the class part of
//! `WM_CLASS` (sway 1.7: `view_get_app_id`, else `view_get_class`). When XWayland lets the bot in
//! ([`super::WlrDesktop`]), such a window is listed and played through the X11 route (its own
//! pixels, XTEST keys after the X focus check), and its toplevel twin is left out, so that each
//! window is listed once. The protocol says nothing else about a toplevel's origin, so the twin is
//! told by title and app: [`xwayland_twins`].
use crate::platform::WindowInfo;

/// True when toplevel `wl` (title, app id as its `class`) may be X11 window `x`: the same title,
/// and the app id equal to the class part of `x`'s `WM_CLASS` (ASCII case-insensitively). Not the
/// instance part: X11 gnome-2048's instance is `org.gnome.TwentyFortyEight`, the app id of a
/// native gnome-2048.
pub fn same_window(wl: &WindowInfo, x: &WindowInfo) -> bool {
    wl.title == x.title && !wl.class.is_empty() && wl.class.eq_ignore_ascii_case(&x.class)
}

/// For each toplevel of `wl` (in order), the index in `x11` of the X11 window it stands for, or
/// `None` for a native Wayland window. Each X11 window claims at most one toplevel, the first
/// unclaimed one that [`same_window`] matches; so of two toplevels alike (a native 2048-qt and an
/// XWayland one, both "2048 Game" / `2048-qt`) with one X11 window, one stays native.
pub fn xwayland_twins(wl: &[WindowInfo], x11: &[WindowInfo]) -> Vec<Option<usize>> {
    let mut twins = vec![None; wl.len()];
    for (xi, x) in x11.iter().enumerate() {
        if let Some(t) = (0..wl.len()).find(|&i| twins[i].is_none() && same_window(&wl[i], x)) {
            twins[t] = Some(xi);
        }
    }
    twins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Rect;

    fn w(id: u32, title: &str, class: &str, instance: &str) -> WindowInfo {
        WindowInfo {
            id,
            title: title.into(),
            class: class.into(),
            instance: instance.into(),
            rect: Rect {
                x: 0,
                y: 0,
                width: 10,
                height: 10,
            },
            viewable: true,
        }
    }

    #[test]
    fn an_xwayland_toplevel_is_told_by_title_and_wm_class() {
        // as listed under headless sway 1.7 (xprop WM_CLASS; the toplevels' app ids): X11
        // 2048-qt is "2048-qt", "2048-qt", app id 2048-qt; X11 gnome-2048 is
        // "org.gnome.TwentyFortyEight", "Gnome-2048", app id Gnome-2048
        let x_qt = w(0x40000c, "2048 Game", "2048-qt", "2048-qt");
        let x_gnome = w(
            0x600003,
            "GNOME 2048",
            "Gnome-2048",
            "org.gnome.TwentyFortyEight",
        );
        assert!(same_window(&w(7, "2048 Game", "2048-qt", ""), &x_qt));
        assert!(same_window(&w(9, "GNOME 2048", "Gnome-2048", ""), &x_gnome));
        assert!(same_window(&w(9, "GNOME 2048", "gnome-2048", ""), &x_gnome));
        // a native gnome-2048's app id is the X11 one's instance, not its class
        assert!(!same_window(
            &w(9, "GNOME 2048", "org.gnome.TwentyFortyEight", ""),
            &x_gnome
        ));
        assert!(!same_window(&w(7, "2048 Game ", "2048-qt", ""), &x_qt));
        // an empty app id matches nothing, not even an empty instance
        assert!(!same_window(
            &w(7, "2048", "", ""),
            &w(1, "2048", "Chromium", "")
        ));
    }

    #[test]
    fn each_x11_window_claims_one_toplevel() {
        let wl = [
            w(3, "2048 Game", "2048-qt", ""),
            w(4, "GNOME 2048", "org.gnome.TwentyFortyEight", ""),
            w(5, "2048 Game", "2048-qt", ""),
            w(6, "xterm", "XTerm", ""),
        ];
        let x11 = [
            w(0x200001, "xterm", "XTerm", "xterm"),
            w(0x40000c, "2048 Game", "2048-qt", "2048-qt"),
        ];
        assert_eq!(
            xwayland_twins(&wl, &x11),
            vec![Some(1), None, None, Some(0)]
        );
        assert_eq!(xwayland_twins(&wl, &[]), vec![None; 4]);
        assert_eq!(xwayland_twins(&[], &x11), Vec::<Option<usize>>::new());
    }
}
