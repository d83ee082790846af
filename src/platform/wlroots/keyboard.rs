//! [`VirtualKeyboard`]: keys through `zwp_virtual_keyboard_v1` (wayland-protocols-misc), with a
//! fixed XKB keymap.
//!
//! The keymap (`KEYMAP`) names the keys the bot presses, each at its usual evdev code (the XKB
//! keycode is the evdev code + 8): the four arrows (Up 103, Down 108, Left 105, Right 106),
//! Escape (1), Return (28) and the letters a–z at their QWERTY places (a dialog button's
//! mnemonic, e.g. `y`). It is sent once, through an unlinked file, when the keyboard is made;
//! then a roundtrip and a pause of [`FIRST_KEY_PAUSE`], since the first key right after the
//! keyboard is created was seen lost (measured with `wtype` under sway 1.7).
//!
//! The virtual keyboard types into whatever has the seat's focus, as XTEST does under X11: the
//! focus check before each key is the caller's ([`super::WlrGame`]).
use super::client::{Client, WlError};
use super::screencopy::file_with;
use crate::engine::Move;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1;

/// The pause after the keymap before the first key.
pub const FIRST_KEY_PAUSE: Duration = Duration::from_millis(50);

/// The letters a–z in order, with their evdev codes on a QWERTY keyboard.
const LETTERS: [(char, u32); 26] = [
    ('a', 30),
    ('b', 48),
    ('c', 46),
    ('d', 32),
    ('e', 18),
    ('f', 33),
    ('g', 34),
    ('h', 35),
    ('i', 23),
    ('j', 36),
    ('k', 37),
    ('l', 38),
    ('m', 50),
    ('n', 49),
    ('o', 24),
    ('p', 25),
    ('q', 16),
    ('r', 19),
    ('s', 31),
    ('t', 20),
    ('u', 22),
    ('v', 47),
    ('w', 17),
    ('x', 45),
    ('y', 21),
    ('z', 44),
];

/// A key the bot presses, as an evdev code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evdev(pub u32);

impl Evdev {
    /// Escape.
    pub const ESCAPE: Evdev = Evdev(1);
    /// Return.
    pub const RETURN: Evdev = Evdev(28);

    /// The arrow key of `m`.
    pub fn arrow(m: Move) -> Evdev {
        Evdev(match m {
            Move::Up => 103,
            Move::Down => 108,
            Move::Left => 105,
            Move::Right => 106,
        })
    }

    /// The key of letter `c` (a–z, either case); `None` for anything else.
    pub fn letter(c: char) -> Option<Evdev> {
        let c = c.to_ascii_lowercase();
        LETTERS
            .iter()
            .find(|(l, _)| *l == c)
            .map(|(_, k)| Evdev(*k))
    }
}

/// The XKB keymap (text, as `xkb_keymap_get_as_string` would give): the arrows, Escape, Return
/// and a–z. Types and compatibility come from XKB's `complete` sets, as `wtype` does it.
pub fn keymap() -> String {
    let mut codes = String::new();
    let mut symbols = String::new();
    let mut key = |name: &str, evdev: u32, sym: &str| {
        codes.push_str(&format!("    <{name}> = {};\n", evdev + 8));
        symbols.push_str(&format!("    key <{name}> {{ [ {sym} ] }};\n"));
    };
    key("ESC", 1, "Escape");
    key("RTRN", 28, "Return");
    key("UP", 103, "Up");
    key("LEFT", 105, "Left");
    key("RGHT", 106, "Right");
    key("DOWN", 108, "Down");
    for (c, code) in LETTERS {
        key(&format!("L{c}"), code, &c.to_string());
    }
    format!(
        "xkb_keymap {{\n  xkb_keycodes \"bot2048\" {{\n    minimum = 8;\n    maximum = 255;\n\
         {codes}  }};\n  xkb_types \"bot2048\" {{ include \"complete\" }};\n  \
         xkb_compatibility \"bot2048\" {{ include \"complete\" }};\n  \
         xkb_symbols \"bot2048\" {{\n{symbols}  }};\n}};\n"
    )
}

/// A virtual keyboard on the seat.
#[derive(Debug)]
pub struct VirtualKeyboard {
    kb: ZwpVirtualKeyboardV1,
    start: Instant,
}

impl VirtualKeyboard {
    /// Creates the keyboard, sends the keymap, does a roundtrip and waits [`FIRST_KEY_PAUSE`].
    ///
    /// # Errors
    /// [`WlError::MissingGlobal`] without the virtual-keyboard manager; [`WlError::Protocol`]
    /// when the keymap file cannot be made or the connection fails.
    pub fn new(c: &mut Client) -> Result<VirtualKeyboard, WlError> {
        let kb = c.virtual_keyboard()?;
        let mut text = keymap().into_bytes();
        text.push(0); // the size includes the terminating NUL
        let file = file_with(&text).map_err(|e| WlError::Protocol(format!("keymap file: {e}")))?;
        // format 1 = XKB_V1 (wl_keyboard.keymap_format)
        kb.keymap(1, file.as_fd(), text.len() as u32);
        kb.modifiers(0, 0, 0, 0);
        c.sync()?;
        std::thread::sleep(FIRST_KEY_PAUSE);
        Ok(VirtualKeyboard {
            kb,
            start: Instant::now(),
        })
    }

    /// Presses and releases `key`, then makes sure the compositor has both events (roundtrip).
    ///
    /// # Errors
    /// [`WlError::Protocol`].
    pub fn tap(&mut self, c: &mut Client, key: Evdev) -> Result<(), WlError> {
        let t = self.start.elapsed().as_millis() as u32;
        self.kb.key(t, key.0, 1);
        self.kb.key(t + 1, key.0, 0);
        c.sync()
    }
}

impl Drop for VirtualKeyboard {
    fn drop(&mut self) {
        self.kb.destroy();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrows_are_the_evdev_codes_and_the_keymap_names_them_at_evdev_plus_8() {
        assert_eq!(Evdev::arrow(Move::Up), Evdev(103));
        assert_eq!(Evdev::arrow(Move::Down), Evdev(108));
        assert_eq!(Evdev::arrow(Move::Left), Evdev(105));
        assert_eq!(Evdev::arrow(Move::Right), Evdev(106));
        assert_eq!(Evdev::letter('Y'), Some(Evdev(21)));
        assert_eq!(Evdev::letter('1'), None);
        let k = keymap();
        for line in [
            "<UP> = 111;",
            "<DOWN> = 116;",
            "<LEFT> = 113;",
            "<RGHT> = 114;",
        ] {
            assert!(k.contains(line), "{line} missing from\n{k}");
        }
        assert!(
            k.contains("<Ly> = 29;") && k.contains("key <Ly> { [ y ] };"),
            "{k}"
        );
        assert!(k.contains("key <ESC> { [ Escape ] };"), "{k}");
    }
}
