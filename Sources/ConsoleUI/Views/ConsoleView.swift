/// The whole screen from the state: header, tabs, list and detail panes, status rows, and
/// whatever overlay the mode calls for. Pure: the same state always draws the same cells.
enum ConsoleView {
    static func draw(_ state: ConsoleState, on screen: Screen) {
        // Every time on screen is in the zone chosen for display (the operator's, or UTC on u).
        DisplayZone.$current.withValue(state.shownZone) { drawInZone(state, on: screen) }
    }

    private static func drawInZone(_ state: ConsoleState, on screen: Screen) {
        screen.clear()
        let layout = state.layout
        if layout.isTooSmall {
            let text = "receiptdesk needs at least \(Layout.minimum) (this terminal is \(state.size)); q quits"
            for (index, line) in ConsoleFormat.wrap(text, width: max(10, state.size.columns - 2)).enumerated() {
                screen.put(line, row: index, column: 1, style: CellStyle(.warning, bold: true))
            }
            screen.present()
            return
        }
        TabBarView.drawHeader(state, on: screen)
        TabBarView.drawTabs(state, on: screen)
        PaneViews.drawList(state, on: screen)
        PaneViews.drawDetail(state, on: screen)
        StatusBarView.draw(state, on: screen)
        switch state.mode {
        case .help(let scroll): HelpView.draw(state, scroll: scroll, on: screen)
        case .form(let form): OverlayViews.drawForm(state, form, on: screen)
        case .confirm(let confirmation): OverlayViews.drawConfirm(state, confirmation, on: screen)
        case .quitConfirm: OverlayViews.drawQuitConfirm(state, on: screen)
        case .pager(let pager): PagerView.draw(state, pager, on: screen)
        case .refunds(let queue): RefundQueueView.draw(state, queue, on: screen)
        case .browse, .filter, .command: break
        }
        screen.present()
    }
}
