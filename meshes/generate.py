#!/usr/bin/env python3
"""Writes the shipped OBJ inputs (meshes/) and the broken meshes used by the
tests (tests/data/meshes/). Run from anywhere; the .obj files are committed.

All good meshes are closed, manifold and counter-clockwise seen from outside
(fsicut's convention), in metres.
"""
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Unit cube [-0.5, 0.5]^3: 8 corners, bit i of the index = coordinate i is +0.5.
CUBE_V = [((i & 1) - 0.5, ((i >> 1) & 1) - 0.5, ((i >> 2) & 1) - 0.5) for i in range(8)]
# Outward quads (counter-clockwise seen from outside), 0-based.
CUBE_Q = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]


def cube_triangles():
    return [t for a, b, c, d in CUBE_Q for t in ((a, b, c), (a, c, d))]


def write(path, header, vertices, faces):
    path = os.path.join(ROOT, path)
    with open(path, "w") as f:
        f.write("".join("# " + line + "\n" for line in header))
        for v in vertices:
            f.write("v %.17g %.17g %.17g\n" % v)
        for face in faces:
            f.write("f " + " ".join(str(i + 1) for i in face) + "\n")


def torus(major, minor, nu, nv):
    vertices, faces = [], []
    for i in range(nu):
        u = 2 * math.pi * i / nu
        for j in range(nv):
            w = 2 * math.pi * j / nv
            r = major + minor * math.cos(w)
            vertices.append((r * math.cos(u), minor * math.sin(w), r * math.sin(u)))
    idx = lambda i, j: (i % nu) * nv + (j % nv)
    for i in range(nu):
        for j in range(nv):
            a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)
            faces += [(a, d, c), (a, c, b)]
    return vertices, faces


def beach(toe, slope, end, z0, z1, below=0.05):
    """A wedge across z (z0..z1): the plane y = slope (x - toe) from below the
    floor (y = -below) up to x = end, closed by the planes y = -below and x = end."""
    section = [(toe - below / slope, -below), (end, -below), (end, slope * (end - toe))]
    vertices = [(x, y, z) for z in (z0, z1) for x, y in section]
    # The cap at z0 faces -z, the one at z1 faces +z; each side quad faces out of the section.
    faces = [(0, 2, 1), (3, 4, 5)]
    for i in range(3):
        j = (i + 1) % 3
        faces += [(i, j, j + 3), (i, j + 3, i + 3)]
    return vertices, faces


def main():
    write("meshes/cube.obj",
          ["Unit cube [-0.5, 0.5]^3 as 6 outward quads; volume 1 m^3."],
          CUBE_V, CUBE_Q)
    v, f = torus(0.3, 0.1, 32, 16)
    write("meshes/torus.obj",
          ["Torus around the y axis: major radius 0.3 m, minor radius 0.1 m,",
           "32 x 16 quads split into 1024 outward triangles."],
          v, f)
    inner = [(0.5 * x, 0.5 * y, 0.5 * z) for x, y, z in CUBE_V]
    tris = cube_triangles()
    write("meshes/hollow_cube.obj",
          ["Hollow cube: outer [-0.5, 0.5]^3 facing out, inner [-0.25, 0.25]^3",
           "facing the cavity (reversed); volume 1 - 1/8 = 0.875 m^3."],
          CUBE_V + inner, tris + [(a + 8, c + 8, b + 8) for a, b, c in tris])

    v, f = beach(1.4, 0.1, 5.05, -0.05, 1.05)
    write("meshes/flume_beach.obj",
          ["The absorbing beach of scenes/wave_flume.json and the wavemaker test: a 1:10",
           "slope rising from y = 0 at x = 1.4 m to y = 0.365 m at x = 5.05 m, from 5 cm",
           "below the floor, across z = -0.05 .. 1.05 m (a flume up to 1 m wide; the",
           "grid's walls cut off the rest)."],
          v, f)

    write("tests/data/meshes/open.obj",
          ["Unit cube with its last triangle missing: edge (6, 8) of face 3 has no partner."],
          CUBE_V, tris[:-1])
    tet_v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    tet_f = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    # Second tet mirrored through the plane x + y = 0 about edge (0,0,0)-(0,0,1):
    # it shares that edge (vertices 1 and 4) with the first one.
    tet2_v = [(-1, 0, 0), (0, -1, 0)]
    tet2_f = [(0, 5, 4), (0, 4, 3), (0, 3, 5), (4, 5, 3)]
    write("tests/data/meshes/nonmanifold.obj",
          ["Two tetrahedra sharing edge (1, 4): four faces meet at that edge."],
          tet_v + tet2_v, tet_f + tet2_f)
    # Two tetrahedra touching at vertex 1 only.
    tip_v = tet_v + [(-1, 0, 0), (0, -1, 0), (0, 0, -1)]
    tip_f = tet_f + [(0, 4, 5), (0, 6, 4), (0, 5, 6), (4, 6, 5)]
    write("tests/data/meshes/nonmanifold_vertex.obj",
          ["Two tetrahedra touching only at vertex 1: closed and edge-manifold,",
           "but the surface pinches at vertex 1."],
          tip_v, tip_f)
    flipped = list(tris)
    a, b, c = flipped[4]
    flipped[4] = (a, c, b)
    write("tests/data/meshes/flipped_face.obj",
          ["Unit cube with face 5 reversed."],
          CUBE_V, flipped)
    write("tests/data/meshes/inward.obj",
          ["Unit cube with every face reversed: normals point inward."],
          CUBE_V, [(a, c, b) for a, b, c in tris])
    shifted = [(x + 0.5, y + 0.25, z + 0.125) for x, y, z in CUBE_V]
    write("tests/data/meshes/self_intersecting.obj",
          ["Two overlapping unit cubes: each closed and outward, but they intersect."],
          CUBE_V + shifted, tris + [(a + 8, b + 8, c + 8) for a, b, c in tris])
    with open(os.path.join(ROOT, "tests/data/meshes/garbage.obj"), "w") as f:
        f.write("this is not a mesh\n<html>\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n")
    with open(os.path.join(ROOT, "tests/data/meshes/empty.obj"), "w") as f:
        f.write("# an OBJ file without faces\nv 0 0 0\n")


if __name__ == "__main__":
    main()
