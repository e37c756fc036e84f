// The built-in filter catalogue as the strip policy sees it (SPEC E3):
// families in display order, each with its filter ids in family order.
// The LUTs themselves live with the renderer; this is only ids and order.

/// One family of built-in filters.
public struct FilterFamily: Sendable, Hashable, Codable {
    /// Stable id of the family.
    public var id: String
    /// Display name.
    public var name: String
    /// Filter ids in display order.
    public var filterIDs: [String]

    /// - Parameters: `id`, display `name` and the `filterIDs` in order.
    public init(id: String, name: String, filterIDs: [String]) {
        self.id = id
        self.name = name
        self.filterIDs = filterIDs
    }
}

/// A validated catalogue: every family has at least
/// `minimumFamilySize` filters and every id occurs once.
public struct FilterCatalogue: Sendable, Hashable {
    /// SPEC E3: "Smallest family has 6 filters" — what lets recent filters
    /// leave their family without emptying it (see `FilterStrip`).
    public static let minimumFamilySize = 6

    /// Families in display order.
    public let families: [FilterFamily]
    private let familyIndexByFilter: [String: Int]

    /// - Parameter families: families in display order.
    /// - Throws: `FilterError` (`.invalidCatalogue`) naming the family or id.
    public init(families: [FilterFamily]) throws {
        var index: [String: Int] = [:]
        var familyIDs = Set<String>()
        for (position, family) in families.enumerated() {
            guard !family.id.isEmpty, familyIDs.insert(family.id).inserted else {
                throw FilterError(.invalidCatalogue, "filter catalogue: family id \"\(family.id)\" is empty or used twice")
            }
            guard family.filterIDs.count >= Self.minimumFamilySize else {
                throw FilterError(.invalidCatalogue,
                                  "filter catalogue: family \"\(family.id)\" has \(family.filterIDs.count) filters, at least \(Self.minimumFamilySize) are required")
            }
            for id in family.filterIDs {
                guard !id.isEmpty, index[id] == nil else {
                    throw FilterError(.invalidCatalogue, "filter catalogue: filter id \"\(id)\" in family \"\(family.id)\" is empty or used twice")
                }
                index[id] = position
            }
        }
        self.families = families
        self.familyIndexByFilter = index
    }

    /// Whether `filterID` is a built-in filter.
    public func contains(_ filterID: String) -> Bool { familyIndexByFilter[filterID] != nil }

    /// The family holding `filterID`, if it is built in.
    public func family(of filterID: String) -> FilterFamily? {
        familyIndexByFilter[filterID].map { families[$0] }
    }
}
