//===- Markup.h - Text written once, as Markdown or plain text -*- C++ -*-===//
//
// Part of CAKE. Hover and completion documentation are written with inline
// `code` and **bold** marks, _italic_ asides and simple tables; clients that
// cannot render Markdown (state.caps.markdownHover is false) get the same
// text with the marks removed and the tables aligned in columns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace cake::lsp {

class Markup {
public:
  explicit Markup(bool markdown) : markdown_(markdown) {}

  bool markdown() const { return markdown_; }

  /// A block of CAKE IR source.
  void code(const std::string &source) { blocks_.push_back(markdown_ ? "```cake\n" + source + "\n```" : source); }

  /// A paragraph with `code` and **bold** marks.
  void text(const std::string &paragraph) { blocks_.push_back(markdown_ ? paragraph : plain(paragraph)); }

  /// A closing remark, in italics (plain text: as it is), e.g. which
  /// instantiation the text above describes.
  void aside(const std::string &line) { blocks_.push_back(markdown_ ? "_" + line + "_" : plain(line)); }

  /// A table; the first row is the header.
  void table(const std::vector<std::vector<std::string>> &rows) {
    if (rows.empty())
      return;
    std::string out;
    if (markdown_) {
      for (size_t r = 0; r < rows.size(); ++r) {
        out += r ? "\n|" : "|";
        for (const std::string &cell : rows[r])
          out += " " + cell + " |";
        if (r == 0) {
          out += "\n|";
          for (size_t c = 0; c < rows[0].size(); ++c)
            out += "---|";
        }
      }
    } else {
      std::vector<size_t> width(rows[0].size(), 0);
      for (const auto &row : rows)
        for (size_t c = 0; c < row.size() && c < width.size(); ++c)
          width[c] = std::max(width[c], plain(row[c]).size());
      for (size_t r = 0; r < rows.size(); ++r) {
        std::string line;
        for (size_t c = 0; c < rows[r].size() && c < width.size(); ++c) {
          std::string cell = plain(rows[r][c]);
          line += (c ? "  " : "") + cell + std::string(width[c] - cell.size(), ' ');
        }
        while (!line.empty() && line.back() == ' ')
          line.pop_back();
        out += (r ? "\n" : "") + line;
      }
    }
    blocks_.push_back(out);
  }

  std::string str() const {
    std::string out;
    for (size_t i = 0; i < blocks_.size(); ++i)
      out += (i ? "\n\n" : "") + blocks_[i];
    return out;
  }

  /// \p text without Markdown marks.
  static std::string plain(std::string text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '`')
        continue;
      if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '*') {
        ++i;
        continue;
      }
      out += text[i];
    }
    return out;
  }

private:
  bool markdown_;
  std::vector<std::string> blocks_;
};

} // namespace cake::lsp
