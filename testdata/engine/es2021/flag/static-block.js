// want: class static blocks
class Config {
  static {
    this.ready = true;
  }
}
return Config.ready;
