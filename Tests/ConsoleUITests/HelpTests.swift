import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29, section 3: `?` lists every binding of every mode (the pager's w, n, s too) over
/// the whole width, wrapping instead of cutting.
@Suite("Help lists every key")
struct HelpTests {
    /// Everything the help shows, scrolled through from top to bottom.
    static func helpText(_ c: ConsoleController, size: ScreenSize) -> String {
        let screen = VirtualScreen(size: size)
        c.press(.character("?"), on: screen)
        var seen = screen.text
        for _ in 0..<60 {
            let before = screen.text
            c.press(.pageDown, on: screen)
            if screen.text == before { break }
            seen += screen.text
        }
        return seen
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 60, columns: 200)])
    func helpListsEveryBindingOfEveryMode(_ size: ScreenSize) throws {
        let f = try ConsoleFixture()
        let (c, _) = f.console(size: size)
        let text = Self.helpText(c, size: size)
        for binding in KeyBindings.all {
            #expect(text.contains(binding.command.rawValue), "\(binding.command.rawValue) is not in the help at \(size)")
        }
        for mode in InputMode.allCases {
            #expect(text.contains(mode.title), "\(mode.title) is not in the help at \(size)")
            for binding in ModeKeys.all where binding.mode == mode {
                #expect(text.contains(binding.name), "\(binding.name) is not in the help at \(size)")
            }
        }
        for words in ["wrap long lines", "next match of the search", "save the value to a new file"] {
            #expect(text.contains(words), "the pager's \(words) is not in the help at \(size)")
        }
        // No summary is cut: the longest wraps onto the next line instead.
        #expect(!text.contains("…"), "something in the help is cut at \(size)")
    }

    @Test func helpUsesTheWholeWidth() throws {
        let f = try ConsoleFixture()
        let size = ScreenSize(rows: 60, columns: 200)
        let (c, screen) = f.console(size: size)
        c.press(.character("?"), on: screen)
        let top = screen.text.split(separator: "\n", omittingEmptySubsequences: false)[0]
        #expect(DisplayWidth.of(String(top.trimmingCharacters(in: .whitespaces))) >= 190, "the help box is narrower than the screen: \(top)")
        // Two columns at 200: the browsing keys on the left, more on the right, on the first screen.
        let first = screen.text
        #expect(first.contains("re-verify") && first.contains("Pager"), "\(first)")
    }
}
