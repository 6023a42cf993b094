#!/usr/bin/env python3
"""Generated programs for .ci/lisp-differential, as {"id","program"} JSON lines on stdout.

`generated N SEED`: N expressions over the core functions, drawn from a seeded generator (the
same N and SEED give the same programs). The recorded programs come from
`cargo run -p ptc-lisp --example eval -- --runs LOG...`.
"""
import json, random, sys


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, *xs):
        return self.r.choice(xs)

    def int(self, d=0):
        r = self.r
        if d > 2 or r.random() < 0.35:
            return str(r.choice([-7, -1, 0, 1, 2, 3, 5, 10, 42, 100]))
        k = r.randrange(11)
        a, b = self.int(d + 1), self.int(d + 1)
        return [f"(+ {a} {b})", f"(- {a} {b})", f"(* {a} {b})", f"(inc {a})",
                f"(max {a} {b})", f"(min {a} {b})", f"(count {self.vec(d + 1)})",
                f"(reduce + 0 {self.vec(d + 1)})", f"(abs {a})", f"((partial + {a}) {b})",
                f"((fnil * 2) {self.pick('nil', a)} {b})"][k]

    def num(self, d=0):
        a, b = self.int(d + 1), self.int(d + 1)
        return self.pick(f"(/ {a} {self.pick('2', '4', '3', '0.5')})", f"(* {a} 1.5)",
                         f"(quot {a} {self.pick('2', '3', '-2')})", f"(mod {a} {self.pick('3', '-3')})",
                         f"(rem {a} {self.pick('3', '-3')})", f"(double {a})", self.int(d))

    def str(self, d=0):
        r = self.r
        if d > 2 or r.random() < 0.3:
            return json.dumps(r.choice(["", "a", "abc", "Hello World", "x,y,z", "  pad  ", "é"]))
        s = self.str(d + 1)
        return self.pick(f"(str {s} {self.any(d + 1)})", f"(subs {s} {self.pick('0', '1', '2')})",
                         f"(clojure.string/upper-case {s})", f"(clojure.string/join \",\" {self.vec(d + 1)})",
                         f"(pr-str {self.any(d + 1)})", f"(clojure.string/trim {s})",
                         f"(clojure.string/replace {s} \"a\" \"b\")", f"(name {self.kw()})",
                         "(clojure.string/replace " + s + " " + self.regex() + ' "<&\\\\1>")')

    def regex(self):
        return self.pick('","', '""', '#"\\s+"', '#","', '#"[aeiou]"', '#"(\\w)(\\w)?"', '#"\\d*"', '#"[A-Z][a-z]+"')

    def kw(self):
        return self.pick(":a", ":b", ":c", ":name", ":n")

    def vec(self, d=0):
        r = self.r
        if d > 2 or r.random() < 0.3:
            return "[" + " ".join(r.choice(["1", "2", "3", "-4", "10", "2.5"]) for _ in range(r.randrange(5))) + "]"
        v = self.vec(d + 1)
        return self.pick(f"(range {self.pick('0', '3', '5')})", f"(take 2 {v})", f"(drop 1 {v})",
                         f"(reverse {v})", f"(sort {v})", f"(mapv inc {v})", f"(filterv odd? {v})",
                         f"(conj {v} {self.int(d + 1)})", f"(clojure.string/split {self.str(d + 1)} {self.regex()})",
                         f"(re-seq {self.regex()} {self.str(d + 1)})", f"(re-split {self.regex()} {self.str(d + 1)})", f"(distinct {v})", f"(vec (concat {v} {self.vec(d + 1)}))",
                         f"(sort-by - {v})", f"(map #(* % 2) {v})", f"(take-last 2 {v})", f"(rest {v})")

    def map(self, d=0):
        r = self.r
        if d > 2 or r.random() < 0.3:
            ks = r.sample([":a", ":b", ":c", "\"s\"", ":name"], r.randrange(4))
            return "{" + " ".join(f"{k} {self.int(3)}" for k in ks) + "}"
        m = self.map(d + 1)
        return self.pick(f"(assoc {m} {self.kw()} {self.any(d + 1)})", f"(dissoc {m} :a)",
                         f"(merge {m} {self.map(d + 1)})", f"(update {m} :a (fnil inc 0))",
                         f"(select-keys {m} [:a :b])", f"(frequencies {self.vec(d + 1)})",
                         f"(group-by odd? {self.vec(d + 1)})", f"(zipmap [:a :b] {self.vec(d + 1)})",
                         f"(into {{}} [[:x {self.int(d + 1)}]])")

    def any(self, d=0):
        k = self.r.randrange(12)
        if k < 3:
            return self.int(d)
        if k < 5:
            return self.str(d)
        if k < 7:
            return self.vec(d)
        if k < 9:
            return self.map(d)
        if k == 9:
            return self.pick("nil", "true", "false", self.kw(), self.num(d))
        m = self.map(d + 1)
        return self.pick(f"(get {m} {self.kw()})", f"(keys {m})", f"(vals {m})", f"(first {self.vec(d + 1)})",
                         f"(nth {self.vec(d + 1)} {self.pick('0', '1', '5')} :none)", f"(count {m})",
                         f"(contains? {m} :a)", f"(= {self.any(d + 1)} {self.any(d + 1)})",
                         f"(empty? {self.vec(d + 1)})", f"(last {self.vec(d + 1)})", f"(get-in {m} [:a])",
                         f"(if (< {self.int(d + 1)} {self.int(d + 1)}) {self.str(d + 1)} {self.int(d + 1)})",
                         f"(let [x {self.int(d + 1)}] (* x x))", f"(set {self.vec(d + 1)})",
                         f"(sort-by :n [{{:n 3}} {{:n 1}} {{:n 2}}])", f"(compare {self.str(d + 1)} {self.str(d + 1)})",
                         f"(re-find {self.regex()} {self.str(d + 1)})", f"(re-matches {self.regex()} {self.str(d + 1)})")

    def program(self):
        if self.r.random() < 0.3:
            return f"(println {self.any()} {self.str()})\n{self.any()}"
        return self.any()


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "generated":
        g = Gen(int(sys.argv[3]))
        rows = ({"id": f"gen:{i}", "program": g.program()} for i in range(int(sys.argv[2])))
    else:
        sys.exit("usage: lisp-differential-programs.py generated N SEED")
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


main()
