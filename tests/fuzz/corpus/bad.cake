kernel bad() {
  y = 2 3
}
