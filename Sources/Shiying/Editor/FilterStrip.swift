// SPEC E3/E4: the order of the filter strip, as a pure function of the
// catalogue, the use history and the custom filters.
//
//   original │ recent (only if any, most recent first) │ family 1 │ … │ custom … 「存为滤镜」
//
// - Recent filters leave their family, so each filter appears exactly once
//   (seeing one twice makes people wonder "why this one again").
// - A family is never emptied. With the default cap of 5 recents and the
//   smallest family at 6 (SPEC E3) this cannot happen; for a larger cap the
//   rule is: if every filter of a family is among the recents, the family's
//   least recently used one stays in its family and leaves the recent
//   section (which is not refilled from older uses).
// - Ids in the history that the catalogue does not know (removed filters,
//   custom filters) are ignored.
// - The custom section is always there, even empty, and ends with
//   「存为滤镜」, because that is where saving starts (SPEC E4).

/// One tile of the strip.
public enum FilterStripItem: Sendable, Hashable {
    /// 「原片」: no filter.
    case original
    /// A built-in filter.
    case filter(id: String)
    /// A user-saved filter.
    case custom(id: String)
    /// 「存为滤镜」: save the current look as a custom filter.
    case saveAsFilter
}

/// A run of tiles with one meaning.
public struct FilterStripSection: Sendable, Hashable {
    /// What the section holds.
    public enum Kind: Sendable, Hashable {
        /// The unfiltered photo.
        case original
        /// Recently used filters.
        case recent
        /// A built-in family, by its id.
        case family(id: String)
        /// The user's own filters.
        case custom
    }

    /// What the section holds.
    public let kind: Kind
    /// Family name, 「自定义滤镜」 for the custom section, nil otherwise.
    public let title: String?
    /// The section's tiles, in order.
    public fileprivate(set) var items: [FilterStripItem]
}

/// The strip's sections in display order.
public struct FilterStrip: Sendable, Hashable {
    /// Recent filters shown (SPEC E3 says "a few"): one less than the
    /// smallest family, so no family can be emptied by them.
    public static let defaultRecentLimit = FilterCatalogue.minimumFamilySize - 1
    /// Title of the custom section (SPEC E4).
    public static let customSectionTitle = "自定义滤镜"
    /// Label of the last tile of the custom section (SPEC E4).
    public static let saveAsFilterTitle = "存为滤镜"

    /// The strip's sections, in order.
    public private(set) var sections: [FilterStripSection]

    /// Builds the strip.
    /// - Parameters:
    ///   - catalogue: built-in families.
    ///   - recentIDs: used filter ids, most recent first (unknown ids are ignored).
    ///   - customFilters: user filters in the order they were saved.
    ///   - recentLimit: most recent filters shown (default `defaultRecentLimit`).
    public init(catalogue: FilterCatalogue, recentIDs: [String], customFilters: [CustomFilter],
                recentLimit: Int = FilterStrip.defaultRecentLimit) {
        var seen = Set<String>()
        var recents = Array(recentIDs.filter { catalogue.contains($0) && seen.insert($0).inserted }
                                     .prefix(max(0, recentLimit)))

        // A family is never emptied: keep its least recently used filter home.
        for family in catalogue.families where family.filterIDs.allSatisfy(recents.contains) {
            if let oldest = recents.lastIndex(where: family.filterIDs.contains) { recents.remove(at: oldest) }
        }

        var sections = [FilterStripSection(kind: .original, title: nil, items: [.original])]
        if !recents.isEmpty {
            sections.append(FilterStripSection(kind: .recent, title: nil, items: recents.map { .filter(id: $0) }))
        }
        let moved = Set(recents)
        for family in catalogue.families {
            let items = family.filterIDs.filter { !moved.contains($0) }.map { FilterStripItem.filter(id: $0) }
            sections.append(FilterStripSection(kind: .family(id: family.id), title: family.name, items: items))
        }
        var customIDs = Set<String>()
        let customs = customFilters.filter { customIDs.insert($0.id).inserted }.map { FilterStripItem.custom(id: $0.id) }
        sections.append(FilterStripSection(kind: .custom, title: Self.customSectionTitle, items: customs + [.saveAsFilter]))
        self.sections = sections
    }

    /// Every tile, left to right.
    public var items: [FilterStripItem] { sections.flatMap(\.items) }

    /// The section of `kind`, if present.
    public func section(_ kind: FilterStripSection.Kind) -> FilterStripSection? {
        sections.first { $0.kind == kind }
    }

    /// Adds a newly saved custom filter just before 「存为滤镜」; nothing else moves.
    mutating func appendCustom(_ id: String) {
        guard let index = sections.lastIndex(where: { $0.kind == .custom }),
              !sections[index].items.contains(.custom(id: id)) else { return }
        sections[index].items.insert(.custom(id: id), at: sections[index].items.count - 1)
    }
}

/// The filter page as it is open: a strip fixed at `openedAtMilliseconds`
/// (SPEC E3: tapping never re-sorts it, so the tile under the finger stays)
/// and the history that taps update for the next opening.
public struct FilterPage: Sendable, Hashable {
    /// When the page opened; uses after it do not shape this strip.
    public let openedAtMilliseconds: Int64
    /// The strip shown while the page is open.
    public private(set) var strip: FilterStrip
    /// The history including taps made on this page (persist it).
    public private(set) var history: FilterUseHistory
    /// Custom filters, including those saved on this page.
    public private(set) var customFilters: [CustomFilter]

    /// Opens the page: the strip is built once, from uses up to `openedAtMilliseconds`.
    /// - Parameters: the catalogue, history, custom filters, the moment of opening and the recent cap.
    public init(catalogue: FilterCatalogue, history: FilterUseHistory, customFilters: [CustomFilter],
                openedAtMilliseconds: Int64, recentLimit: Int = FilterStrip.defaultRecentLimit) {
        self.openedAtMilliseconds = openedAtMilliseconds
        self.history = history
        self.customFilters = customFilters
        self.strip = FilterStrip(catalogue: catalogue, recentIDs: history.recentIDs(asOf: openedAtMilliseconds),
                                 customFilters: customFilters, recentLimit: recentLimit)
    }

    /// Records a tap. A built-in filter is remembered as used (for the next
    /// opening); the strip does not change. Other tiles record nothing.
    public mutating func tap(_ item: FilterStripItem, at time: Int64) {
        if case .filter(let id) = item { history.record(id, at: time) }
    }

    /// Shows a just-saved custom filter at the end of the custom section,
    /// before 「存为滤镜」. Existing tiles keep their places.
    public mutating func didSave(_ custom: CustomFilter) {
        guard !customFilters.contains(where: { $0.id == custom.id }) else { return }
        customFilters.append(custom)
        strip.appendCustom(custom.id)
    }
}
