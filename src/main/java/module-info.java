/** Postbox: outbox, durable jobs and background work for plain-JDBC applications. */
module dev.postbox {
  requires transitive java.sql;
  requires org.slf4j;

  exports dev.postbox;
}
