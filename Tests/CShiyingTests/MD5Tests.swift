// XMP Part 3 names a JPEG's extended XMP by the MD5 of its bytes (xmpNote:HasExtendedXMP and every
// extension chunk carry it): a wrong digest leaves exiftool and every other reader unable to join the parts.
// RFC 1321's test suite (appendix A.5), in the upper-case form the GUID takes, and inputs at the padding's
// block boundaries (their digests from md5sum).
import CShiyingInternal
import Testing

@Suite struct MD5Tests {
    private func md5(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = [CChar](repeating: 0, count: 33)
        bytes.withUnsafeBufferPointer { sy__md5_hex_upper($0.baseAddress, $0.count, &out) }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test(arguments: [
        ("", "D41D8CD98F00B204E9800998ECF8427E"),
        ("a", "0CC175B9C0F1B6A831C399E269772661"),
        ("abc", "900150983CD24FB0D6963F7D28E17F72"),
        ("message digest", "F96B697D7CB7938D525A2F31AAF161D0"),
        ("abcdefghijklmnopqrstuvwxyz", "C3FCD3D76192E4007DFB496CCA67E13B"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "D174AB98D277D9F5A5611C2C9F419D9F"),
        (String(repeating: "1234567890", count: 8), "57EDF4A22BE3C955AC49DA2E2107B67A"),
    ])
    func rfc1321Suite(_ input: String, _ digest: String) {
        #expect(md5(input) == digest, "MD5(\"\(input)\")")
    }

    // Padding edges: 55 bytes fit one block with the length, 56 need a second, 64 fill one exactly.
    @Test(arguments: [
        (55, "EF1772B6DFF9A122358552954AD0DF65"),
        (56, "3B0C8AC703F828B04C6C197006D17218"),
        (63, "B06521F39153D618550606BE297466D5"),
        (64, "014842D480B571495A4A0363793F7367"),
        (65, "C743A45E0D2E6A95CB859ADAE0248435"),
    ])
    func blockBoundaries(_ count: Int, _ digest: String) {
        #expect(md5(String(repeating: "a", count: count)) == digest, "MD5 of \(count) × 'a'")
    }
}
