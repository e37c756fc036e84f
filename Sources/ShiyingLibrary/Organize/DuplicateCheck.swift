// SPEC D7: opening an exact-duplicate group re-checks it on the spot, in
// memory, from stored data only (no original is read).

/// A member's qualification data: the snapshot taken when the group formed,
/// and the same fields as the store holds them now.
public struct DuplicateQualification: Sendable, Hashable {
    /// Photo or video.
    public var mediaType: OrganizeMediaType
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Duration in milliseconds; nil or 0 for a still.
    public var durationMs: Int
    /// The file's size in bytes.
    public var fileBytes: Int64
    /// SHA-256 of the decoded pixels, lowercase hex.
    public var pixelSHA256: String

    /// Qualification data of one member.
    public init(mediaType: OrganizeMediaType, width: Int, height: Int, durationMs: Int, fileBytes: Int64,
                pixelSHA256: String) {
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.durationMs = durationMs
        self.fileBytes = fileBytes
        self.pixelSHA256 = pixelSHA256
    }
}

/// One member of the group being opened.
public struct DuplicateMemberRecord: Sendable, Hashable {
    /// The asset's identifier.
    public var assetID: Int64
    /// As stored when the group formed.
    public var qualified: DuplicateQualification
    /// As the store holds it now; nil when the asset's record is gone.
    public var current: DuplicateQualification?

    /// A member with the data stored when it qualified and what it has now (nil = gone).
    public init(assetID: Int64, qualified: DuplicateQualification, current: DuplicateQualification?) {
        self.assetID = assetID
        self.qualified = qualified
        self.current = current
    }
}

/// The outcome of the check.
public struct DuplicateVerification: Sendable, Hashable, Codable {
    /// True when every member still qualifies.
    public var verified: Bool
    /// Why not (empty when verified).
    public var problems: [String]
}

/// SPEC D7: re-checks a duplicate group before any of it is deleted.
public enum DuplicateCheck {
    /// SPEC D7: every member matches its stored qualification data; all share
    /// one candidate bucket (dimensions, duration, media type); the group's
    /// evidence (content fingerprint) agrees with every member.
    public static func verify(evidence: String?, members: [DuplicateMemberRecord]) -> DuplicateVerification {
        var problems: [String] = []
        if members.count < 2 { problems.append("fewer than two members") }
        guard let evidence, !evidence.isEmpty else {
            return DuplicateVerification(verified: false, problems: problems + ["the group has no evidence"])
        }
        for m in members {
            guard let now = m.current else {
                problems.append("asset \(m.assetID): no stored record")
                continue
            }
            if now != m.qualified { problems.append("asset \(m.assetID): stored data changed since grouping") }
            if now.pixelSHA256 != evidence { problems.append("asset \(m.assetID): content fingerprint differs") }
        }
        struct Bucket: Hashable { var m: OrganizeMediaType, w: Int, h: Int, d: Int }
        let buckets = Set(members.compactMap { $0.current.map { Bucket(m: $0.mediaType, w: $0.width, h: $0.height, d: $0.durationMs) } })
        if buckets.count > 1 { problems.append("members fall into \(buckets.count) candidate buckets") }
        return DuplicateVerification(verified: problems.isEmpty, problems: problems)
    }
}
