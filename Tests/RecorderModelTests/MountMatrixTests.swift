import Foundation
import RecorderJSON
import RecorderModel
import Testing

@Suite("Mount matrices")
struct MountMatrixTests {
    @Test func theIIOTextIsReadRowByRowAndApplied() throws {
        let m = try #require(MountMatrix(iioText: "0, -1, 0; 1, 0, 0; 0, 0, 1"))
        #expect(m.isRotation && !m.isIdentity)
        #expect(m.apply(Vector3(x: 1, y: 2, z: 3)) == Vector3(x: -2, y: 1, z: 3))
        #expect(MountMatrix(iioText: "1, 0, 0; 0, 1, 0; 0, 0, 1")?.isIdentity == true)
        #expect(MountMatrix(iioText: "1, 0, 0; 0, 1, 0") == nil)
        #expect(MountMatrix(iioText: "1, 0, 0; 0, 1, 0; 0, 0, nan") == nil)
    }

    @Test func aConfiguredMatrixMustBeARotation() throws {
        struct Holder: Decodable { let mountMatrix: MountMatrix }
        func decode(_ json: String) -> String {
            do {
                _ = try JSONValueDecoder().decode(Holder.self, from: Array(#"{"mountMatrix": \#(json)}"#.utf8))
                return "ok"
            } catch {
                return DecodingErrorDescription.describe(error)
            }
        }
        #expect(decode("[[0,0,1],[0,1,0],[-1,0,0]]") == "ok")
        let s = 0.5.squareRoot()
        #expect(decode("[[\(s),\(-s),0],[\(s),\(s),0],[0,0,1]]") == "ok")
        // A reflection, a scaling, a shear, the wrong shape.
        #expect(decode("[[1,0,0],[0,1,0],[0,0,-1]]").hasPrefix("mountMatrix: expected a rotation"))
        #expect(decode("[[2,0,0],[0,2,0],[0,0,2]]").hasPrefix("mountMatrix: expected a rotation"))
        #expect(decode("[[1,0.1,0],[0,1,0],[0,0,1]]").hasPrefix("mountMatrix: expected a rotation"))
        #expect(decode("[[1,0,0],[0,1,0]]").contains("expected three rows of three numbers"))
    }
}
