import Foundation
import PurchaseStore

/// The refund requests queue (Apple's CONSUMPTION_REQUESTs), most urgent first: open ones by
/// deadline, then sent ones; with `all`, answered ones too.
struct RefundQueueState: Equatable {
    var requests: [RefundRequest] = []
    var selected = 0
    var all = false
    var loaded = false

    var selectedRequest: RefundRequest? { requests.indices.contains(selected) ? requests[selected] : nil }
}

/// Keys in the refund queue (`ModeKeys`, remappable; by default): ↑ ↓ choose, Enter reviews the selected request's consumption
/// information (then reason and send), `a` shows answered requests too, Esc closes.
enum RefundQueueLogic {
    static func handleKey(_ state: inout ConsoleState, _ queue: RefundQueueState, _ key: KeyEvent) -> [ConsoleEffect] {
        var queue = queue
        switch ModeKeys.action(for: key, in: .refunds, table: state.modeBindings) {
        case .close?:
            state.mode = .browse
            return []
        case .down?: queue.selected = min(max(0, queue.requests.count - 1), queue.selected + 1)
        case .up?: queue.selected = max(0, queue.selected - 1)
        case .top?: queue.selected = 0
        case .bottom?: queue.selected = max(0, queue.requests.count - 1)
        case .answered?:
            queue.all.toggle()
            queue.loaded = false
            state.mode = .refunds(queue)
            return [.loadRefunds(all: queue.all)]
        case .reload?:
            state.mode = .refunds(queue)
            return [.loadRefunds(all: queue.all)]
        case .review?:
            guard let request = queue.selectedRequest else {
                state.message = StatusMessage(text: "no refund request to review", kind: .info)
                return []
            }
            if state.header.readOnly {
                state.message = StatusMessage(text: "read-only (--read-only): sending consumption information is not available; nothing changed",
                                              kind: .error)
                return []
            }
            guard request.status == .open else {
                state.message = StatusMessage(text: "refund request #\(request.requestId) is \(request.status.rawValue): nothing to send", kind: .info)
                return []
            }
            return [.openConsumption(request.requestId)]
        default: break
        }
        state.mode = .refunds(queue)
        return []
    }

    /// The queue as loaded, the selection kept on the same request when it is still there.
    static func loaded(_ state: inout ConsoleState, _ requests: [RefundRequest], all: Bool) {
        guard case .refunds(var queue) = state.mode, queue.all == all else { return }
        let previous = queue.selectedRequest?.requestId
        queue.requests = requests
        queue.loaded = true
        queue.selected = requests.firstIndex { $0.requestId == previous } ?? min(queue.selected, max(0, requests.count - 1))
        state.mode = .refunds(queue)
    }
}
