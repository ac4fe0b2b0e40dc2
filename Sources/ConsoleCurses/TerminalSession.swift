@preconcurrency import CNcurses
import ConsoleUI
import Foundation
import Glibc

/// The terminal in curses mode for the length of `run`, and restored afterwards whatever
/// happens: a normal return, a thrown error, or a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT and
/// the crash signals run a handler that leaves curses mode and re-raises). While the screen is
/// up, standard error goes to a log file, so nothing writes over the screen.
public enum TerminalSession {
    /// Why the console cannot start.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `body` with the screen and key reader; the terminal is restored before this returns or throws.
    public static func run<T>(environment: [String: String] = ProcessInfo.processInfo.environment,
                              logPath: String? = nil, _ body: (CursesScreen, KeyReader) throws -> T) throws -> T {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw Failure(description: "the console needs a terminal (standard input and output are not one)")
        }
        guard cn_setlocale_utf8() == 1 else {
            throw Failure(description: "no UTF-8 locale (not even C.UTF-8) is available: set LANG to a UTF-8 locale")
        }
        let savedError = redirectStandardError(to: logPath ?? defaultLogPath(environment))
        defer { restoreStandardError(savedError) }
        _ = set_escdelay(25)
        guard let terminal = newterm(nil, stdout, stdin) else {
            throw Failure(description: "cannot start curses on TERM=\(environment["TERM"] ?? "(unset)")")
        }
        _ = set_term(terminal)
        // A terminal that cannot move the cursor (TERM=dumb, an unknown TERM) would show one
        // frozen line: say so and point to the command line instead.
        let cup = tigetstr("cup")
        guard let cup, Int(bitPattern: cup) != -1 else {
            _ = endwin()
            delscreen(terminal)
            throw Failure(description: "TERM=\(environment["TERM"] ?? "(unset)") cannot move the cursor, so the console cannot draw: run it in a terminal that can (TERM=xterm-256color, tmux, screen), or use the command line: receiptdesk search TEXT, receiptdesk customer show ID (receiptdesk help lists every command)")
        }
        cn_install_restoring_handlers()
        defer {
            cn_bracketed_paste(0)
            _ = endwin()
            cn_remove_restoring_handlers()
            delscreen(terminal)
        }
        _ = cbreak()
        _ = noecho()
        _ = nonl()
        _ = keypad(cn_stdscr(), true)
        _ = curs_set(0)
        let noColor = Theme.noColorRequested(environment)
        if has_colors() && !noColor {
            _ = start_color()
            _ = use_default_colors()
        }
        let theme = Theme.choose(colors: Int(cn_colors()), hasColors: has_colors(), noColor: noColor)
        cn_enable_mouse()
        cn_bracketed_paste(1)
        return try body(CursesScreen(theme: theme), KeyReader())
    }

    /// Puts `text` on the terminal's clipboard with OSC 52 (`ESC ] 52 ; c ; base64 BEL`), written
    /// straight to the terminal between frames: it moves no cursor and draws nothing. Over SSH
    /// and in tmux (`set -g set-clipboard on`) this is how a program copies.
    public static func copyToClipboard(_ text: String) -> Bool {
        let sequence = Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)
        var written = 0
        while written < sequence.count {
            let n = sequence[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }

    /// `$XDG_STATE_HOME/receiptdesk/console.log` (default `~/.local/state/…`).
    static func defaultLogPath(_ environment: [String: String]) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSTemporaryDirectory()) + "/.local/state")
        return state + "/receiptdesk/console.log"
    }

    /// Points file descriptor 2 at the log (or /dev/null); returns the saved descriptor.
    private static func redirectStandardError(to path: String) -> Int32 {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)  // no log folder: /dev/null below
        var target = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        if target < 0 { target = open("/dev/null", O_WRONLY) }
        let saved = dup(STDERR_FILENO)
        if target >= 0 {
            _ = dup2(target, STDERR_FILENO)
            close(target)
        }
        return saved
    }

    private static func restoreStandardError(_ saved: Int32) {
        guard saved >= 0 else { return }
        _ = dup2(saved, STDERR_FILENO)
        close(saved)
    }
}
