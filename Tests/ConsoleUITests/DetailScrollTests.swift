import Foundation
import Testing
@testable import ConsoleUI

/// The console fuzzer found it: a detail scrolled further than its lines (its row changed under
/// it) trapped on drawing a range whose end was before its start.
@Suite("Detail scrolled past its end")
struct DetailScrollTests {
    @Test func aDetailShorterThanItsScrollDrawsWithoutTrapping() throws {
        let f = try ConsoleFixture()
        let (controller, screen) = f.console()
        controller.state.detail.scroll = 10_000
        controller.render(on: screen)
        #expect(screen.text.contains("Customers"))
    }
}
