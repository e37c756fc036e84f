// SPEC S5: the share-menu rows a selection offers. Compress for photos,
// collage for 2–30 photos, to-Live for exactly one video; each row only opens
// the app at its page (the share extension converts nothing itself).

/// SPEC S5 as data (`rules`) and one function (`rows(for:)`).
public enum ShareMenuPolicy {
    /// One selected item, as the share sheet sees it.
    public enum Item: String, Sendable, Hashable, CaseIterable {
        /// A still photo.
        case photo
        /// A Live photo: a photo (its movie rides along), never a video.
        case livePhoto
        /// A video.
        case video

        /// Photos and Live photos count as photos; a video does not.
        public var isPhoto: Bool { self != .video }
    }

    /// A share-menu row.
    public enum Row: String, Sendable, Hashable, CaseIterable {
        /// 「压缩」: compress the photos.
        case compress
        /// 「拼图」: a collage of the photos.
        case collage
        /// 「转为实况」: the video as a Live photo.
        case toLive
    }

    /// The app page a row opens.
    public enum Page: String, Sendable, Hashable {
        /// The compression page, with the selection.
        case compression
        /// The collage editor, with the selection as its cells.
        case collage
        /// The video → Live page, with the video.
        case videoToLive
    }

    /// What tapping a row does: only open the app at a page with the selection (SPEC S5).
    public enum Action: Sendable, Hashable {
        /// Opens the app at `page`, handing it the selected items; nothing is processed in the share sheet.
        case openApp(page: Page)
    }

    /// Which selections a row appears for.
    public struct Rule: Sendable, Hashable {
        /// The row.
        public let row: Row
        /// The page it opens.
        public let page: Page
        /// Every selected item must be one of these kinds.
        public let accepts: Set<Item>
        /// How many items the selection may hold.
        public let count: ClosedRange<Int>
    }

    /// SPEC S5, in the menu's order.
    public static let rules: [Rule] = [
        Rule(row: .compress, page: .compression, accepts: [.photo, .livePhoto], count: 1...Int.max),
        Rule(row: .collage, page: .collage, accepts: [.photo, .livePhoto], count: 2...30),
        Rule(row: .toLive, page: .videoToLive, accepts: [.video], count: 1...1),
    ]

    /// An offered row and what it does.
    public struct Offer: Sendable, Hashable {
        /// The row shown.
        public let row: Row
        /// Always `.openApp` at the row's page.
        public let action: Action
    }

    /// The rows `selection` offers, in the menu's order; none for an empty or
    /// mixed selection that no rule takes whole (a video among photos offers
    /// neither compress nor collage).
    public static func rows(for selection: [Item]) -> [Offer] {
        rules.filter { rule in
            rule.count.contains(selection.count) && selection.allSatisfy(rule.accepts.contains)
        }.map { Offer(row: $0.row, action: .openApp(page: $0.page)) }
    }
}
