import ConsoleUI

/// The console's loop on a real terminal: draw, wait up to 100 ms for a key (ticking the
/// spinner and collecting background results meanwhile), hand keys to the controller, repeat
/// until the operator quits. Keys that arrive together are handled before one redraw.
public enum TerminalConsole {
    /// Runs the controller `make` builds for the terminal's size until the operator quits; the
    /// terminal is restored afterwards, also when `make` or the loop throws. `afterFirstFrame`
    /// runs once the first screen is drawn (work put off so as not to delay it).
    public static func run(logPath: String? = nil, afterFirstFrame: () -> Void = {}, _ make: (ScreenSize) throws -> ConsoleController) throws {
        try TerminalSession.run(logPath: logPath) { screen, keys in
            let controller = try make(screen.size)
            controller.render(on: screen)
            afterFirstFrame()
            while !controller.isFinished {
                var changed = false
                if let key = keys.read(timeoutMilliseconds: 100) {
                    controller.handle(key)
                    changed = true
                    var burst = 0
                    while burst < 4096, !controller.isFinished, let more = keys.read(timeoutMilliseconds: 0) {
                        controller.handle(more)
                        burst += 1
                    }
                }
                if controller.tick() { changed = true }
                if changed && !controller.isFinished { controller.render(on: screen) }
            }
            controller.shutdown()
        }
    }
}
