// SPEC D1–D3 and G6: deleting from "set aside" (放一边), the "up to X freed"
// figure, and the messages when some items were not deleted.

/// One set-aside item as the delete confirmation sees it.
public struct DeletionItem: Sendable, Hashable {
    /// The asset's identifier.
    public var id: Int64
    /// Size of the current version; nil = not measurable.
    public var currentBytes: Int64?
    /// Size including pre-edit originals (full resources); nil = not measurable.
    public var fullResourceBytes: Int64?

    /// An item with its sizes (nil when unknown).
    public init(id: Int64, currentBytes: Int64?, fullResourceBytes: Int64?) {
        self.id = id
        self.currentBytes = currentBytes
        self.fullResourceBytes = fullResourceBytes
    }
}

/// SPEC D1: what deleting from the set-aside list asks for.
public struct SetAsideDeletionRequest: Sendable, Hashable {
    /// The assets to delete.
    public var items: [Int64]
    /// Always false: the user's own set-aside choice is the authorization;
    /// no similar/duplicate group is re-checked.
    public var requiresGroupCheck: Bool
    /// Always true: the system's own confirmation still appears.
    public var systemConfirmation: Bool
    /// Deleted items stay this long in Recently Deleted.
    public var recentlyDeletedDays: Int
    /// SPEC D2.
    public var freed: FreedSpace
}

/// SPEC D2: "up to X freed".
public struct FreedSpace: Sendable, Hashable {
    /// Bytes freed.
    public var bytes: Int64
    /// Whether the larger (both measured) or the smaller measure was used.
    public var measuredBoth: Bool
    /// The confirmation text; it says the system decides the final number.
    public var text: String
}

/// SPEC D1: deleting what the organize review set aside.
public enum SetAsideDeletion {
    /// SPEC D1: deleting from "set aside" — no group re-check; the system
    /// confirms; 30 days in Recently Deleted.
    public static func request(_ items: [DeletionItem]) -> SetAsideDeletionRequest {
        SetAsideDeletionRequest(items: items.map(\.id), requiresGroupCheck: false, systemConfirmation: true,
                                recentlyDeletedDays: 30, freed: freed(items))
    }

    /// SPEC D2: the larger of (current versions) and (full resources incl.
    /// pre-edit originals); when that cannot be measured for every item, the
    /// smaller of what was measured — better to promise too little.
    public static func freed(_ items: [DeletionItem]) -> FreedSpace {
        let current = items.map { $0.currentBytes ?? 0 }.reduce(0, +)
        let full = items.map { $0.fullResourceBytes ?? 0 }.reduce(0, +)
        let both = items.allSatisfy { $0.currentBytes != nil && $0.fullResourceBytes != nil }
        let bytes: Int64
        if both {
            bytes = max(current, full)
        } else {
            let currentKnown = items.allSatisfy { $0.currentBytes != nil }
            let fullKnown = items.allSatisfy { $0.fullResourceBytes != nil }
            let measured = [currentKnown ? current : nil, fullKnown ? full : nil].compactMap { $0 }
            bytes = measured.min() ?? min(current, full)
        }
        return FreedSpace(bytes: bytes, measuredBoth: both,
                          text: "最多可释放 \(byteText(bytes))。实际数量以系统确认删除的项目为准。")
    }

    /// "1.5 MB"-style text (decimal units, as Photos shows sizes).
    public static func byteText(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        if unit == 0 { return "\(bytes) B" }
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) \(units[unit])" : "\(tenths) \(units[unit])"
    }
}

/// What the system answered for one item of a deletion.
public enum DeletionItemResult: Sendable, Hashable {
    /// The asset went to Recently Deleted.
    case deleted
    /// Not visible to the app (limited photo access).
    case notVisible
    /// Refused by the system (e.g. shared albums).
    case refused
}

/// SPEC D3: the outcome, split into the two failure kinds with their messages.
public struct DeletionOutcome: Sendable, Hashable {
    /// Assets deleted.
    public var deleted: [Int64]
    /// Skipped: the app cannot see them.
    public var notVisible: [Int64]
    /// Stay on the page: can be restored, or deleted in Photos.
    public var refused: [Int64]

    /// The outcome of per-item results.
    public init(_ results: [(id: Int64, result: DeletionItemResult)]) {
        deleted = results.filter { $0.result == .deleted }.map(\.id)
        notVisible = results.filter { $0.result == .notVisible }.map(\.id)
        refused = results.filter { $0.result == .refused }.map(\.id)
    }

    /// Not visible → skipped, suggest allowing all photos.
    public var notVisibleMessage: String? {
        notVisible.isEmpty ? nil
            : "有 \(notVisible.count) 项拾映目前看不到，这次已跳过。允许取用全部照片后再删除。"
    }

    /// Refused → stays on the page; restore here or delete in Photos.
    public var refusedMessage: String? {
        refused.isEmpty ? nil
            : "有 \(refused.count) 项系统不让拾映删除（多半在共享相簿里），仍留在这一页：可以拿回来，或到「照片」App 里删除。"
    }

    /// Items that stay on the set-aside page (refused ones; not-visible ones were skipped and stay too).
    public var remaining: [Int64] { refused + notVisible }
}

/// SPEC G6: after leaving screenshot clean-up, one toast when any deletion failed.
public struct FailedDeletionToast: Sendable, Hashable {
    /// The toast's text.
    public var text: String
    /// Shown about this long, no tap needed.
    public var seconds: Double

    /// - Parameter failed: items that were refused or failed.
    /// - Returns: nil when everything was deleted.
    public static func after(failed: Int) -> FailedDeletionToast? {
        failed > 0 ? FailedDeletionToast(text: "有 \(failed) 项没删掉，仍在照片图库里", seconds: 3.5) : nil
    }
}
